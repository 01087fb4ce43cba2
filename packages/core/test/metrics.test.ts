import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Metrics } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

/** A Metrics port that records every call, by method. */
function recordingMetrics() {
  const calls: { [K in keyof Metrics]: Parameters<Metrics[K]>[] } = {
    requestHandled: [],
    notificationSent: [],
    attemptsEnded: [],
    streamOpened: [],
    streamClosed: [],
    limiterRefused: [],
    storeOperation: [],
    webhookRequest: [],
    requestLogDropped: [],
  };
  const metrics: Metrics = {
    requestHandled: (...args) => calls.requestHandled.push(args),
    notificationSent: (...args) => calls.notificationSent.push(args),
    attemptsEnded: (...args) => calls.attemptsEnded.push(args),
    streamOpened: (...args) => calls.streamOpened.push(args),
    streamClosed: (...args) => calls.streamClosed.push(args),
    limiterRefused: (...args) => calls.limiterRefused.push(args),
    storeOperation: (...args) => calls.storeOperation.push(args),
    webhookRequest: (...args) => calls.webhookRequest.push(args),
    requestLogDropped: (...args) => calls.requestLogDropped.push(args),
  };
  return { metrics, calls };
}

let h: Harness;
let recorded: ReturnType<typeof recordingMetrics>;
beforeEach(async () => {
  recorded = recordingMetrics();
  h = await createHarness({ limits: { perKey: 5 }, extra: { metrics: recorded.metrics } });
});
afterEach(async () => {
  await h.close();
});

/** The attempts ended so far, summed by `status/reason`. */
function ended(): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const [status, reason, count] of recorded.calls.attemptsEnded) {
    const label = `${status}/${reason ?? 'none'}`;
    sums[label] = (sums[label] ?? 0) + count;
  }
  return sums;
}

function postEvents(browser: { browserId: string; secret: string }, events: unknown[]) {
  return h.request('/v1/events', {
    method: 'POST',
    body: JSON.stringify({ browser_id: browser.browserId, browser_secret: browser.secret, events }),
    headers: { 'Content-Type': 'text/plain' },
  });
}

describe('metrics of requests', () => {
  it('labels a request by its route pattern, never by its path, and times it', async () => {
    const browser = await h.connectBrowser('user-1');
    const sent = await (await h.send({ recipient: 'user-1', title: 'Hi' })).json();
    await h.request(`/v1/notifications/${sent.id}`, { key: h.liveKey });
    await h.request('/v1/nowhere/ct_secretlooking');
    await h.request('/v1/events', { method: 'BREW' });
    const labels = recorded.calls.requestHandled.map(([method, route, status]) => `${method} ${route} ${status}`);
    expect(labels).toEqual([
      'POST /v1/connect/{token} 201',
      'POST /v1/notifications 201',
      'GET /v1/notifications/{id} 200',
      'GET unmatched 404',
      'other /v1/events 405',
    ]);
    for (const [, , , durationMs] of recorded.calls.requestHandled) expect(durationMs).toBeGreaterThan(0);
    const everyLabel = JSON.stringify(recorded.calls);
    expect(everyLabel).not.toContain(browser.token);
    expect(everyLabel).not.toContain(sent.id);
  });
});

describe('metrics of sends and attempts', () => {
  it('counts sends by mode, a test send as attempts ended accepted, and no replay', async () => {
    await h.connectBrowser('user-1');
    await h.connectBrowser('user-1');
    expect((await h.send({ recipient: 'user-1', title: 'L' })).status).toBe(201);
    const headers = { 'Idempotency-Key': 'once' };
    expect((await h.send({ recipient: 'user-1', title: 'T' }, h.testKey, headers)).status).toBe(201);
    expect((await h.send({ recipient: 'user-1', title: 'T' }, h.testKey, headers)).status).toBe(201);
    expect((await h.send({ recipient: 'nobody', title: 'T' })).status).toBe(409);
    expect(recorded.calls.notificationSent).toEqual([
      ['live', 2],
      ['test', 2],
    ]);
    expect(ended()).toEqual({ 'accepted/none': 2 });
  });

  it('counts an attempt ended by a receipt once, however often the receipt comes', async () => {
    const browser = await h.connectBrowser('user-1');
    const sent = await (await h.send({ recipient: 'user-1', title: 'Hi' })).json();
    const receipt = [{ type: 'delivered', attempt_id: sent.attempts[0].id }];
    expect((await postEvents(browser, receipt)).status).toBe(202);
    expect((await postEvents(browser, [...receipt, { type: 'clicked', attempt_id: sent.attempts[0].id }])).status).toBe(
      202,
    );
    expect(ended()).toEqual({ 'delivered/none': 1 });
  });

  it('counts attempts failed by a disconnect, by stale reaping, and expired by their ttl', async () => {
    const leaving = await h.connectBrowser('user-1');
    await h.connectBrowser('user-2');
    await h.send({ recipient: 'user-1', title: 'A' });
    await h.send({ recipient: 'user-1', title: 'B' });
    const disconnect = await h.request(`/v1/browsers/${leaving.browserId}/disconnect`, {
      method: 'POST',
      body: leaving.secret,
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(disconnect.status).toBe(204);
    expect(ended()).toEqual({ 'failed/browser_disconnected': 2 });

    await h.send({ recipient: 'user-2', title: 'short', ttl: 1 });
    h.clock.advance(1_000);
    await h.tidings.sweep();
    expect(ended()).toMatchObject({ 'expired/ttl_expired': 1 });

    await h.send({ recipient: 'user-2', title: 'long' });
    h.clock.advance(120_001);
    await h.tidings.sweep();
    expect(ended()).toEqual({
      'failed/browser_disconnected': 2,
      'expired/ttl_expired': 1,
      'failed/browser_stale': 1,
    });
  });
});

describe('metrics of streams, limits and the store', () => {
  it('counts a stream opened and closed', async () => {
    const { token } = await h.tidings.createConnectToken({ projectId: h.project.id, recipient: 'streamer' });
    const stream = readEvents(await h.request(`/v1/connect/${token}`, { headers: { Accept: 'text/event-stream' } }));
    await stream.next('ready');
    expect(recorded.calls.streamOpened).toHaveLength(1);
    expect(recorded.calls.streamClosed).toHaveLength(0);
    await stream.cancel();
    await expect.poll(() => recorded.calls.streamClosed.length).toBe(1);
    expect(h.tidings.openStreams()).toBe(0);
  });

  it('counts each refusal once, under the narrowest full scope, never an identity', async () => {
    for (let i = 0; i < 6; i++) await h.request('/v1/notifications/ntf_x', { key: h.liveKey });
    expect(recorded.calls.limiterRefused).toEqual([['key']]);

    const limited = await createHarness({
      limits: { invalidKeyPerIp: 1, connectPerIp: 1, eventsPerIp: 1 },
      extra: { metrics: recorded.metrics },
    });
    try {
      for (let i = 0; i < 2; i++) {
        await limited.request('/v1/notifications/ntf_x', { key: 'sk_live_nope' });
        await limited.request('/v1/connect/ct_unknown', { method: 'POST' });
        await limited.request('/v1/events', { method: 'POST', json: { browser_id: 'brw_x', browser_secret: 'x' } });
      }
    } finally {
      await limited.close();
    }
    expect(recorded.calls.limiterRefused).toEqual([['key'], ['ip_invalid_key'], ['ip_connect'], ['ip_events']]);
  });

  it('times every store operation by name, a failed one as an error', async () => {
    await h.send({ recipient: 'nobody', title: 'T' });
    const names = new Set(recorded.calls.storeOperation.map(([name]) => name));
    expect(names).toContain('findApiKeyByHash');
    expect(names).toContain('createNotification');
    expect(recorded.calls.storeOperation.every(([, ms, outcome]) => ms >= 0 && outcome === 'ok')).toBe(true);

    await h.store.close();
    expect((await h.request('/v1/notifications/ntf_x', { key: h.testKey })).status).toBe(500);
    expect(recorded.calls.storeOperation.at(-1)).toEqual(['findApiKeyByHash', expect.any(Number), 'error']);
  });
});
