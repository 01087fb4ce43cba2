import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness } from './harness.js';

let h: Awaited<ReturnType<typeof createHarness>>;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.tidings.close();
});

describe('routing', () => {
  it('routes each fetch by its own path, whatever handles() was asked before it', async () => {
    expect(h.tidings.handles('/v1/notifications')).toBe(true);
    const read = await h.request('/v1/notifications/ntf_00000000000000000000000000', { key: h.liveKey });
    expect(read.status).toBe(404);
    expect((await read.json()).detail).toMatch(/^No notification with id/);

    expect(h.tidings.handles('/v1/nowhere')).toBe(false);
    const send = await h.request('/v1/notifications', {
      method: 'POST',
      key: h.liveKey,
      json: { recipient: 'nobody', title: 'Hi' },
    });
    expect((await send.json()).code).toBe('NO_CONNECTED_BROWSER');

    expect(h.tidings.handles('/v1/nowhere')).toBe(false);
    const nowhere = await h.request('/v1/nowhere', { key: h.liveKey });
    expect((await nowhere.json()).detail).toMatch(/^No route GET/);
  });

  it('gives every request its own path parameters, when handles() and fetch() see the same path', async () => {
    for (const id of ['ntf_00000000000000000000000001', 'ntf_00000000000000000000000002']) {
      expect(h.tidings.handles(`/v1/notifications/${id}`)).toBe(true);
      const read = await h.request(`/v1/notifications/${id}`, { key: h.liveKey });
      expect((await read.json()).detail).toBe(`No notification with id ${id}`);
    }
  });
});
