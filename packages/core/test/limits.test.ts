import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLimiter, type Limiter } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

describe('rate limits over the API', () => {
  it('key 60 per 60 s, then 429 with Retry-After and RateLimit headers; reads count too; nothing is sent', async () => {
    h = await createHarness();
    await h.connectBrowser('a');
    for (let i = 0; i < 30; i++) expect((await h.send({ recipient: 'a', title: `${i}` })).status).toBe(201);
    h.clock.advance(10_000);
    for (let i = 0; i < 30; i++) {
      expect((await h.request('/v1/notifications/ntf_00000000000000000000000000', { key: h.liveKey })).status).toBe(
        404,
      );
    }
    const limited = await h.send({ recipient: 'a', title: 'too many' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('50');
    expect(limited.headers.get('ratelimit-policy')).toBe('"key";q=60;w=60');
    expect((await limited.json()).code).toBe('RATE_LIMITED');
    expect((await h.tidings.admin.getUsage(h.project.id)).total.notifications).toBe(30);

    // Another key of the project has its own 60.
    expect((await h.send({ recipient: 'a', title: 'other key' }, h.testKey)).status).toBe(201);
    h.clock.advance(50_000);
    expect((await h.send({ recipient: 'a', title: 'after the window' })).status).toBe(201);
  });

  it('project 300 across keys; a refusal consumes nothing in any scope', async () => {
    h = await createHarness({ limits: { perKey: 5, perProject: 8, perAccount: 100 } });
    await h.connectBrowser('a');
    const keys = [
      h.liveKey,
      h.testKey,
      (await h.tidings.admin.createKey({ projectId: h.project.id, mode: 'test' })).key!,
    ];
    const statuses: number[] = [];
    for (const key of keys)
      for (let i = 0; i < 4; i++) statuses.push((await h.send({ recipient: 'a', title: 'x' }, key)).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(8);
    expect(statuses.slice(8)).toEqual([429, 429, 429, 429]);
    // The refused requests did not count against their key: after the window each key has 5 again.
    h.clock.advance(60_000);
    for (let i = 0; i < 5; i++) expect((await h.send({ recipient: 'a', title: 'x' }, keys[2])).status).toBe(201);
  });

  it('the account scope spans projects', async () => {
    h = await createHarness({ limits: { perKey: 100, perProject: 100, perAccount: 3 } });
    const other = await h.tidings.admin.createProject({ accountId: h.account.id, name: 'Second' });
    const otherKey = (await h.tidings.admin.createKey({ projectId: other.id, mode: 'test' })).key!;
    await h.connectBrowser('a');
    await h.connectBrowser('a', other.id);
    expect((await h.send({ recipient: 'a', title: 'x' })).status).toBe(201);
    expect((await h.send({ recipient: 'a', title: 'x' }, otherKey)).status).toBe(201);
    expect((await h.send({ recipient: 'a', title: 'x' })).status).toBe(201);
    const refused = await h.send({ recipient: 'a', title: 'x' }, otherKey);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit')).toMatch(/^"account";r=0;t=60$/);
  });

  it('a suspended project is refused before any limit is counted', async () => {
    h = await createHarness({ limits: { perKey: 2 } });
    await h.connectBrowser('a');
    await h.tidings.admin.suspendProject(h.project.id);
    for (let i = 0; i < 5; i++) {
      const response = await h.send({ recipient: 'a', title: 'x' });
      expect(response.status).toBe(403);
      expect((await response.json()).code).toBe('PROJECT_SUSPENDED');
    }
    await h.tidings.admin.resumeProject(h.project.id);
    expect((await h.send({ recipient: 'a', title: 'x' })).status).toBe(201);
    expect((await h.send({ recipient: 'a', title: 'x' })).status).toBe(201);
  });

  it('a revoked key fails with 401 on the very next request', async () => {
    h = await createHarness();
    await h.connectBrowser('a');
    expect((await h.send({ recipient: 'a', title: 'x' })).status).toBe(201);
    const keys = await h.tidings.admin.listKeys(h.project.id);
    const live = keys.find((key) => key.mode === 'live')!;
    expect(live.key).toBeUndefined();
    expect(live.last_used_at).toBe('2026-06-01T12:00:00.000Z');
    await h.tidings.admin.revokeKey(live.id);
    const response = await h.send({ recipient: 'a', title: 'x' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('Bearer');
  });
});

describe('a limiter that cannot decide', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After on every limited endpoint, and sends nothing', async () => {
    // A limiter that works until it is switched off, as a shared one whose Redis goes away.
    const counting = createMemoryLimiter();
    let reachable = true;
    const limiter: Limiter = {
      consume: (scopes, now) =>
        reachable
          ? counting.consume(scopes, now)
          : Promise.resolve({ allowed: false, unavailable: true, retryAfterMs: 2_500, scopes: [] }),
      close: () => counting.close(),
    };
    h = await createHarness({ extra: { limiter } });
    const browser = await h.connectBrowser('a');
    reachable = false;

    const refusals = [
      await h.send({ recipient: 'a', title: 'x' }),
      await h.request('/v1/notifications', { method: 'POST', json: { recipient: 'a', title: 'x' } }),
      await h.request(`/v1/connect/${browser.token}`, { method: 'POST' }),
      await h.request('/v1/events', {
        method: 'POST',
        json: { browser_id: browser.browserId, browser_secret: browser.secret, events: [] },
      }),
    ];
    for (const response of refusals) {
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('3');
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    }
    expect((await h.tidings.admin.getUsage(h.project.id)).total.notifications).toBe(0);

    reachable = true;
    expect((await h.send({ recipient: 'a', title: 'x' })).status).toBe(201);
  });
});

describe('client IP', () => {
  it('X-Forwarded-For is ignored unless trustProxy says how many hops to believe', async () => {
    h = await createHarness();
    const spoofed = (i: number) =>
      h.request('/v1/notifications', { method: 'POST', headers: { 'X-Forwarded-For': `10.0.0.${i}` } });
    for (let i = 0; i < 120; i++) expect((await spoofed(i)).status).toBe(401);
    expect((await spoofed(200)).status).toBe(429);
    await h.close();

    h = await createHarness({ extra: { trustProxy: 1 } });
    for (let i = 0; i < 150; i++) expect((await spoofed(i)).status).toBe(401);
  });
});
