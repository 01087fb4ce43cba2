import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, parseIdempotencyKey } from '../src/delivery/idempotency.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness({ limits: { perKey: 10_000, perProject: 10_000, perAccount: 10_000 } });
  await h.connectBrowser('alice');
});
afterEach(async () => {
  await h.close();
});

const body = { recipient: 'alice', title: 'Hello', data: { a: 1, b: [1, 2] } };

async function notificationCount() {
  return (await h.tidings.admin.getUsage(h.project.id)).total.notifications;
}

describe('Idempotency-Key', () => {
  it('a replay returns the stored status and body with Idempotent-Replayed, and sends nothing twice', async () => {
    const first = await h.send(body, h.liveKey, { 'Idempotency-Key': 'order-1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.text();
    // Key order does not matter: the fingerprint is the canonical JSON.
    const again = await h.send({ data: { b: [1, 2], a: 1 }, title: 'Hello', recipient: 'alice' }, h.liveKey, {
      'Idempotency-Key': 'order-1',
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    expect(await notificationCount()).toBe(1);
  });

  it('another body, or the same body in another mode → 422 IDEMPOTENCY_MISMATCH', async () => {
    await h.send(body, h.testKey, { 'Idempotency-Key': 'k' });
    const otherMode = await h.send(body, h.liveKey, { 'Idempotency-Key': 'k' });
    expect(otherMode.status).toBe(422);
    expect((await otherMode.json()).code).toBe('IDEMPOTENCY_MISMATCH');
    const otherBody = await h.send({ ...body, title: 'Other' }, h.testKey, { 'Idempotency-Key': 'k' });
    expect(otherBody.status).toBe(422);
  });

  it('keys are scoped to the project', async () => {
    const other = await h.tidings.admin.createProject({ accountId: h.account.id, name: 'Other' });
    const otherKey = (await h.tidings.admin.createKey({ projectId: other.id, mode: 'live' })).key!;
    await h.connectBrowser('alice', other.id);
    expect((await h.send(body, h.liveKey, { 'Idempotency-Key': 'same' })).status).toBe(201);
    const response = await h.send({ ...body, title: 'different' }, otherKey, { 'Idempotency-Key': 'same' });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a failure is not stored: after a 409 NO_CONNECTED_BROWSER the same key works once the recipient connects', async () => {
    const missing = { recipient: 'later', title: 'x' };
    expect((await h.send(missing, h.liveKey, { 'Idempotency-Key': 'retry-me' })).status).toBe(409);
    await h.connectBrowser('later');
    const retried = await h.send(missing, h.liveKey, { 'Idempotency-Key': 'retry-me' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('exactly one of N concurrent requests with one key executes; the others replay or see 409 in progress', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => h.send(body, h.liveKey, { 'Idempotency-Key': 'burst' })),
    );
    const executed = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(executed).toHaveLength(1);
    for (const response of responses) {
      expect([201, 409]).toContain(response.status);
      if (response.status === 409) {
        expect(response.headers.get('retry-after')).toBe('1');
        expect((await response.json()).code).toBe('IDEMPOTENCY_IN_PROGRESS');
      }
    }
    expect(await notificationCount()).toBe(1);
  });

  it('records are kept 24 hours, then the key is free again', async () => {
    await h.send(body, h.liveKey, { 'Idempotency-Key': 'day' });
    h.clock.advance(24 * 3600_000 - 1);
    expect((await h.send(body, h.liveKey, { 'Idempotency-Key': 'day' })).headers.get('idempotent-replayed')).toBe(
      'true',
    );
    h.clock.advance(2);
    const fresh = await h.send(body, h.liveKey, { 'Idempotency-Key': 'day' });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(await notificationCount()).toBe(2);
  });

  it('a replay counts against the rate limits but not against usage', async () => {
    await h.close();
    h = await createHarness({ limits: { perKey: 2 } });
    await h.connectBrowser('alice');
    await h.send(body, h.liveKey, { 'Idempotency-Key': 'r' });
    expect((await h.send(body, h.liveKey, { 'Idempotency-Key': 'r' })).status).toBe(201);
    const third = await h.send(body, h.liveKey, { 'Idempotency-Key': 'r' });
    expect(third.status).toBe(429);
    expect(await notificationCount()).toBe(1);
  });

  it.each(['', 'x'.repeat(256), 'tab\there', 'ünïcode', '"bad \\x escape"'])(
    'an invalid key %j → 400 VALIDATION_FAILED',
    async (key) => {
      const response = await h.send(body, h.liveKey, { 'Idempotency-Key': key });
      expect(response.status).toBe(400);
      expect((await response.json()).code).toBe('VALIDATION_FAILED');
    },
  );

  it('accepts bare keys and structured-field strings', () => {
    expect(parseIdempotencyKey('abc-123')).toBe('abc-123');
    expect(parseIdempotencyKey('"abc-123"')).toBe('abc-123');
    expect(parseIdempotencyKey('"say \\"hi\\""')).toBe('say "hi"');
    expect(parseIdempotencyKey(null)).toBeNull();
  });
});

describe('properties', () => {
  const json = fc.jsonValue();

  it('canonical JSON does not depend on key order, and parses back to an equal value', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(object));
        expect(JSON.parse(canonicalJson(object))).toEqual(JSON.parse(JSON.stringify(object)));
      }),
    );
  });

  it('a replay returns the same body for any valid notification', async () => {
    const notificationBody = fc.record(
      {
        recipient: fc.constant('alice'),
        title: fc.string({ minLength: 1, maxLength: 200 }),
        body: fc.string({ maxLength: 100 }),
        tag: fc.string({ maxLength: 64 }),
        data: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
        ttl: fc.integer({ min: 1, max: 604800 }),
      },
      { requiredKeys: ['recipient', 'title'] },
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(notificationBody, fc.boolean(), async (notification, live) => {
        const key = `prop-${n++}`;
        const apiKey = live ? h.liveKey : h.testKey;
        const first = await h.send(notification, apiKey, { 'Idempotency-Key': key });
        expect(first.status).toBe(201);
        const second = await h.send(notification, apiKey, { 'Idempotency-Key': key });
        expect(second.headers.get('idempotent-replayed')).toBe('true');
        expect(await second.text()).toBe(await first.text());
      }),
      { numRuns: 40 },
    );
  });
});
