import { createManualClock, type Tidings } from '@tidings/core';
import { describe, expect, it } from 'vitest';
import { resolveDashboardOptions } from './options.js';
import type { DashboardStore } from './store.js';

const clock = createManualClock(Date.UTC(2026, 0, 10));
/** Only what the options read of an instance: its admin API's settings. */
const tidings = {
  admin: {
    settings: {
      maxProjectsPerAccount: 3,
      maxActiveKeysPerProject: 4,
      trustProxy: 1,
      publicUrl: 'https://notify.example.com/base',
      clock,
    },
  },
} as unknown as Tidings;
const store = {} as DashboardStore;

describe('dashboard options', () => {
  it('takes the limits, proxy trust, public origin and clock from the Tidings instance', () => {
    const resolved = resolveDashboardOptions({ tidings, store });
    expect(resolved).toMatchObject({
      maxProjectsPerAccount: 3,
      maxActiveKeysPerProject: 4,
      trustProxy: 1,
      publicUrl: 'https://notify.example.com',
      secureCookie: true,
      basePath: '/dashboard',
      signup: 'open',
    });
    expect(resolved.clock).toBe(clock);
  });

  it.each(['hub', 'clock', 'publicUrl', 'trustProxy', 'maxProjectsPerAccount', 'maxActiveKeysPerProject'])(
    'refuses %s, which the instance holds, instead of ignoring it',
    (name) => {
      expect(() => resolveDashboardOptions({ tidings, store, [name]: undefined } as never)).toThrow(
        new TypeError(`tidingsDashboard takes ${name} from the Tidings instance: pass it to createTidings`),
      );
    },
  );

  it('refuses a missing store, a root base path and an unknown sign-up policy', () => {
    expect(() => resolveDashboardOptions({ tidings } as never)).toThrow(TypeError);
    expect(() => resolveDashboardOptions({ tidings, store, basePath: '/' })).toThrow(TypeError);
    expect(() => resolveDashboardOptions({ tidings, store, signup: 'maybe' as never })).toThrow(TypeError);
  });
});
