import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Hub, type HubMessage, silentLogger } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return (await response.json()) as { code: string; status: number; request_id: string; errors?: { path: string }[] };
}

describe('POST /v1/notifications', () => {
  it('live: one attempt per connected browser, accepted and not final, usage counted', async () => {
    await h.connectBrowser('alice');
    await h.connectBrowser('alice');
    const response = await h.send({ recipient: 'alice', title: 'Hi', body: 'There', data: { n: 1 } });
    expect(response.status).toBe(201);
    const notification = await response.json();
    expect(notification).toMatchObject({
      object: 'notification',
      mode: 'live',
      recipient: 'alice',
      title: 'Hi',
      body: 'There',
      url: null,
      data: { n: 1 },
      ttl: 86400,
      status: 'pending',
    });
    expect(notification.id).toMatch(/^ntf_[0-9a-z]{26}$/);
    expect(notification.created_at).toBe('2026-06-01T12:00:00.000Z');
    expect(notification.expires_at).toBe('2026-06-02T12:00:00.000Z');
    expect(notification.attempts).toHaveLength(2);
    for (const attempt of notification.attempts) {
      expect(attempt).toMatchObject({ object: 'attempt', status: 'accepted', final: false, delivered_at: null });
      expect(attempt.id).toMatch(/^att_/);
      expect(attempt.browser_id).toMatch(/^brw_/);
    }
    const usage = await h.tidings.admin.getUsage(h.project.id);
    expect(usage.total).toEqual({ notifications: 1, attempts: 2 });
  });

  it('test: attempts are accepted and final at once, nothing counts toward usage', async () => {
    await h.connectBrowser('bob');
    const response = await h.send({ recipient: 'bob', title: 'T' }, h.testKey);
    expect(response.status).toBe(201);
    const notification = await response.json();
    expect(notification.mode).toBe('test');
    expect(notification.status).toBe('completed');
    expect(notification.attempts).toEqual([expect.objectContaining({ status: 'accepted', final: true })]);
    expect((await h.tidings.admin.getUsage(h.project.id)).total).toEqual({ notifications: 0, attempts: 0 });
  });

  it('409 NO_CONNECTED_BROWSER in both modes, and after the only browser disconnected', async () => {
    for (const key of [h.liveKey, h.testKey]) {
      const response = await h.send({ recipient: 'nobody', title: 'x' }, key);
      expect(response.status).toBe(409);
      expect((await problem(response)).code).toBe('NO_CONNECTED_BROWSER');
    }
    const browser = await h.connectBrowser('carol');
    const disconnect = await h.request(`/v1/browsers/${browser.browserId}/disconnect`, {
      method: 'POST',
      json: { browser_secret: browser.secret },
    });
    expect(disconnect.status).toBe(204);
    expect((await problem(await h.send({ recipient: 'carol', title: 'x' }))).code).toBe('NO_CONNECTED_BROWSER');
  });

  it.each([
    [{ title: 'no recipient' }, 'recipient'],
    [{ recipient: 'a b', title: 'x' }, 'recipient'],
    [{ recipient: 'x'.repeat(129), title: 'x' }, 'recipient'],
    [{ recipient: 'a', title: '' }, 'title'],
    [{ recipient: 'a', title: 'x'.repeat(201) }, 'title'],
    [{ recipient: 'a', title: 'x', body: 'b'.repeat(2001) }, 'body'],
    [{ recipient: 'a', title: 'x', url: 'javascript:alert(1)' }, 'url'],
    [{ recipient: 'a', title: 'x', url: '//evil.example' }, 'url'],
    [{ recipient: 'a', title: 'x', icon: 'ftp://x/y.png' }, 'icon'],
    [{ recipient: 'a', title: 'x', tag: 't'.repeat(65) }, 'tag'],
    [{ recipient: 'a', title: 'x', data: [1, 2] }, 'data'],
    [{ recipient: 'a', title: 'x', data: { big: 'x'.repeat(4100) } }, 'data'],
    [{ recipient: 'a', title: 'x', ttl: 0 }, 'ttl'],
    [{ recipient: 'a', title: 'x', ttl: 604801 }, 'ttl'],
    [{ recipient: 'a', title: 'x', ttl: 1.5 }, 'ttl'],
    [{ recipient: 'a', title: 'x', extra: true }, ''],
  ])('400 VALIDATION_FAILED for %j', async (body, path) => {
    await h.connectBrowser('a');
    const response = await h.send(body);
    expect(response.status).toBe(400);
    const details = await problem(response);
    expect(details.code).toBe('VALIDATION_FAILED');
    expect(details.errors?.map((error) => error.path)).toContain(path);
  });

  it('accepts a path or an absolute URL as url, and a ttl in range', async () => {
    await h.connectBrowser('a');
    for (const url of ['/inbox/42', 'https://example.com/x?y=1']) {
      const response = await h.send({ recipient: 'a', title: 'x', url, ttl: 60 });
      expect(response.status).toBe(201);
      expect((await response.json()).url).toBe(url);
    }
  });

  it('415 for a body that is not JSON, 400 for broken JSON or a missing body, 413 over 32 KiB', async () => {
    const asText = await h.request('/v1/notifications', {
      method: 'POST',
      key: h.liveKey,
      body: 'recipient=a',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(asText.status).toBe(415);
    expect((await problem(asText)).code).toBe('UNSUPPORTED_MEDIA_TYPE');

    const broken = await h.request('/v1/notifications', {
      method: 'POST',
      key: h.liveKey,
      body: '{"recipient":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect((await problem(broken)).code).toBe('VALIDATION_FAILED');

    const empty = await h.request('/v1/notifications', {
      method: 'POST',
      key: h.liveKey,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(empty.status).toBe(400);

    const huge = await h.send({ recipient: 'a', title: 'x', body: 'y'.repeat(33 * 1024) });
    expect(huge.status).toBe(413);
    expect((await problem(huge)).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a send, its replay and a read carry every header of the edge, set once with the answer', async () => {
    await h.connectBrowser('alice');
    const sent = await h.send({ recipient: 'alice', title: 'Hi' }, h.liveKey, { 'Idempotency-Key': 'headers' });
    const replayed = await h.send({ recipient: 'alice', title: 'Hi' }, h.liveKey, { 'Idempotency-Key': 'headers' });
    const read = await h.request(`/v1/notifications/${(await sent.clone().json()).id}`, { key: h.liveKey });
    for (const [response, status] of [
      [sent, 201],
      [replayed, 201],
      [read, 200],
    ] as const) {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('request-id')).toMatch(/^req_[0-9a-z]{26}$/);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toContain('RateLimit');
      expect(response.headers.get('ratelimit-policy')).toBe('"key";q=60;w=60');
      expect(response.headers.get('ratelimit')).toMatch(/^"key";r=\d+;t=\d+$/);
      expect(response.headers.get('referrer-policy')).toBeNull();
    }
    expect(sent.headers.get('idempotent-replayed')).toBeNull();
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.text()).toBe(await sent.text());
  });

  it('every answer has a Request-Id, and problems carry it as request_id', async () => {
    const response = await h.send({ recipient: 'ghost', title: 'x' });
    const requestId = response.headers.get('request-id');
    expect(requestId).toMatch(/^req_[0-9a-z]{26}$/);
    expect((await problem(response)).request_id).toBe(requestId);
  });
});

describe('POST /v1/notifications and the hub', () => {
  /** A hub that hands nothing on: its publishes never settle, or fail; what it was given is kept. */
  function stuckHub(outcome: 'pending' | 'rejected' | 'throws') {
    const published: HubMessage[] = [];
    const hub: Hub = {
      publish(messages) {
        published.push(...messages);
        if (outcome === 'throws') throw new Error('hub down');
        return outcome === 'rejected' ? Promise.reject(new Error('hub down')) : new Promise<void>(() => {});
      },
      subscribe: () => () => {},
      close: async () => {},
    };
    return { hub, published };
  }

  for (const outcome of ['pending', 'rejected', 'throws'] as const) {
    it(`answers 201 once the send is recorded, with a publish that is ${outcome}; a failure is logged`, async () => {
      const errors: string[] = [];
      const logger = { ...silentLogger, error: (message: string) => errors.push(message) };
      const { hub, published } = stuckHub(outcome);
      const own = await createHarness({ extra: { hub, logger } });
      try {
        const browser = await own.connectBrowser('alice');
        const response = await own.send({ recipient: 'alice', title: 'Hi' });
        expect(response.status).toBe(201);
        const sent = await response.json();
        expect(published).toEqual([
          { type: 'deliver', delivery: expect.objectContaining({ notificationId: sent.id, seq: 1 }) },
        ]);
        await new Promise((resolve) => setImmediate(resolve));
        expect(errors).toEqual(outcome === 'pending' ? [] : ['hub publish failed after a send was recorded']);
        // What the hub did not carry is in the store, where a resume or a poll finds it.
        const pending = await own.store.listDeliveries({ browserId: browser.browserId, now: own.clock.now() });
        expect(pending.map((delivery) => delivery.notificationId)).toEqual([sent.id]);
      } finally {
        await own.close();
      }
    });
  }
});

describe('GET /v1/notifications/{id}', () => {
  it('reads a notification of its own project; another project’s or an unknown id is 404', async () => {
    await h.connectBrowser('alice');
    const sent = await (await h.send({ recipient: 'alice', title: 'Hi' })).json();
    const read = await h.request(`/v1/notifications/${sent.id}`, { key: h.testKey });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(sent);

    const other = await h.tidings.admin.createProject({ accountId: h.account.id, name: 'Other' });
    const otherKey = (await h.tidings.admin.createKey({ projectId: other.id, mode: 'live' })).key!;
    const foreign = await h.request(`/v1/notifications/${sent.id}`, { key: otherKey });
    expect(foreign.status).toBe(404);
    expect((await problem(foreign)).code).toBe('NOT_FOUND');
    const unknown = await h.request('/v1/notifications/ntf_00000000000000000000000000', { key: h.liveKey });
    expect(unknown.status).toBe(404);
    const garbage = await h.request('/v1/notifications/%E2%9C%93', { key: h.liveKey });
    expect(garbage.status).toBe(404);
  });
});

describe('routing and CORS', () => {
  it('unknown paths are 404 and wrong methods 405 problems', async () => {
    expect((await problem(await h.request('/v1/nothing'))).code).toBe('NOT_FOUND');
    const wrong = await h.request('/v1/notifications', { method: 'DELETE', key: h.liveKey });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('answers a preflight for the API so that test keys work from a browser; live keys still get 403', async () => {
    const preflight = await h.request('/v1/notifications', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();

    await h.connectBrowser('web');
    const fromBrowser = { Origin: 'https://app.example' };
    const test = await h.send({ recipient: 'web', title: 'x' }, h.testKey, fromBrowser);
    expect(test.status).toBe(201);
    expect(test.headers.get('access-control-allow-origin')).toBe('*');
    const live = await h.send({ recipient: 'web', title: 'x' }, h.liveKey, fromBrowser);
    expect(live.status).toBe(403);
    expect((await problem(live)).code).toBe('FORBIDDEN');
  });
});
