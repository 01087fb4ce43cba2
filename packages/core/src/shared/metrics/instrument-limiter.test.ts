import { describe, expect, it } from 'vitest';
import { defaultLimits } from '../../options.js';
import { invalidKeyScope } from '../../pipeline/api-key-checks.js';
import { browserEndpointScope } from '../../pipeline/browser-checks.js';
import { limitScopes } from '../../pipeline/project-gate.js';
import { type Metrics, noopMetrics } from '../../ports/metrics.js';
import type { ApiKeyRecord, ProjectRecord } from '../../ports/records.js';
import { createMemoryLimiter } from '../limiter/memory-limiter.js';
import { instrumentLimiter, limitScopeLabel } from './instrument-limiter.js';

const key = { id: 'key_1' } as ApiKeyRecord;
const project = { id: 'proj_1', accountId: 'acct_1' } as ProjectRecord;

describe('limitScopeLabel', () => {
  it('names every scope the core counts, without the identity counted', () => {
    const scopes = [
      ...limitScopes(defaultLimits, project, { kind: 'key', key }),
      invalidKeyScope(defaultLimits, '198.51.100.7'),
      browserEndpointScope(defaultLimits, 'connect', '198.51.100.7'),
      browserEndpointScope(defaultLimits, 'events', '198.51.100.7'),
    ];
    expect(scopes.map(limitScopeLabel)).toEqual([
      'key',
      'project',
      'account',
      'ip_invalid_key',
      'ip_connect',
      'ip_events',
    ]);
  });
});

describe('instrumentLimiter', () => {
  it('counts a refused request once, under the narrowest full scope, and nothing admitted', async () => {
    const refusals: string[] = [];
    const metrics: Metrics = { ...noopMetrics, limiterRefused: (scope) => refusals.push(scope) };
    const limiter = instrumentLimiter(createMemoryLimiter(), metrics);
    const limits = { ...defaultLimits, perKey: 3, perProject: 2, perAccount: 2 };
    const scopes = limitScopes(limits, project, { kind: 'key', key });
    for (let i = 0; i < 2; i++) expect((await limiter.consume(scopes, 1_000)).allowed).toBe(true);
    expect(refusals).toEqual([]);
    // The project and the account are both full; the key is not: the project is named.
    expect((await limiter.consume(scopes, 1_000)).allowed).toBe(false);
    expect(refusals).toEqual(['project']);
    await limiter.close();
  });
});
