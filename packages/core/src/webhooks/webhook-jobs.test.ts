import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/harness.js';
import { isoTime } from '../delivery/serialize.js';
import {
  createJobRunner,
  createMemoryMailer,
  inbox,
  JobError,
  type JobHandler,
  type MemoryMailer,
  noopMetrics,
  requestLog,
  silentLogger,
  type TidingsError,
} from '../index.js';
import {
  createOutboundSender,
  WEBHOOK_DISABLE_AFTER_MS,
  WEBHOOK_RESPONSE_EXCERPT_BYTES,
  WEBHOOK_RETRY_SCHEDULE_MS,
  type WebhookAuditEntry,
  webhookRetryDelay,
  webhooks,
} from '../node/index.js';
import { until } from '../testing/until.js';
import { webhookJobs } from './delivery.js';

/** The sender `webhooks()` makes, to the tests' receiver on 127.0.0.1 over http:. */
function localSender(options: { allowPrivateAddresses?: boolean; timeoutMs?: number } = {}) {
  return createOutboundSender({
    allowHttp: true,
    allowPrivateAddresses: options.allowPrivateAddresses ?? true,
    timeoutMs: options.timeoutMs ?? 2000,
    maxResponseBytes: 4 * WEBHOOK_RESPONSE_EXCERPT_BYTES,
  });
}

/** What the receiver got. */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}

/** An answer the receiver gives: a status and headers, or `hang` to answer nothing. */
type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A local endpoint that answers from a script (then 200), recording every request. */
async function startReceiver() {
  const received: Received[] = [];
  const script: Answer[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body, path: req.url ?? '' });
      const answer = script.shift() ?? { status: 200, body: 'ok' };
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let mailer: MemoryMailer;
let audits: WebhookAuditEntry[];
let outcomes: string[];
let handler: JobHandler;

function kinds(options: { allowPrivateAddresses?: boolean; timeoutMs?: number } = {}) {
  return webhookJobs({
    store: h.store,
    sender: localSender(options),
    clock: h.clock,
    logger: silentLogger,
    mailer,
    random: () => 0.5,
    metrics: {
      ...noopMetrics,
      webhookRequest(outcome) {
        outcomes.push(outcome);
      },
    },
    async audit(entry) {
      audits.push(entry);
    },
  });
}

beforeEach(async () => {
  // The jobs are claimed and run by the tests (or their own runners): the instance runs none.
  h = await createHarness({ extra: { features: [inbox(), requestLog(), webhooks({ allowHttp: true })], jobs: false } });
  receiver = await startReceiver();
  mailer = createMemoryMailer();
  audits = [];
  outcomes = [];
  handler = kinds().webhook!;
});
afterEach(async () => {
  await receiver.close();
  await h.close();
});

/** Claims the next due webhook job, runs it, and records its outcome as a runner would. */
async function runNext(run: JobHandler = handler) {
  const [job] = await h.store.claimJobs({
    kinds: ['webhook'],
    limit: 1,
    now: h.clock.now(),
    leaseMs: 60_000,
    owner: 'test',
  });
  if (!job) return null;
  const now = h.clock.now();
  try {
    await run(job, { signal: new AbortController().signal });
    await h.store.completeJob({ id: job.id, owner: 'test', now, keepUntil: now + 1000 });
    return { job, error: null };
  } catch (error) {
    if (error instanceof JobError && !error.retryable) {
      await h.store.failJob({ id: job.id, owner: 'test', error: error.message, now, keepUntil: now + 1000 });
    } else {
      const delay = error instanceof JobError ? (error.retryAfterMs ?? 0) : 0;
      await h.store.retryJob({ id: job.id, owner: 'test', runAt: now + delay, error: String(error) });
    }
    return { job, error: error as JobError };
  }
}

async function endpoint(events: string[] = ['*'], url = receiver.url) {
  return h.tidings.admin.createWebhookEndpoint({ projectId: h.project.id, url, events });
}

/** A browser of `ann`, a live send to it, and the attempt's delivered receipt. */
async function deliveredSend() {
  const browser = await h.connectBrowser('ann');
  const sent = (await (await h.send({ recipient: 'ann', title: 'Hi' })).json()) as {
    id: string;
    attempts: { id: string }[];
  };
  const receipt = await h.request('/v1/events', {
    method: 'POST',
    json: {
      browser_id: browser.browserId,
      browser_secret: browser.secret,
      events: [{ attempt_id: sent.attempts[0]!.id, type: 'delivered' }],
    },
  });
  expect(receipt.status).toBeLessThan(300);
  return { browser, sent };
}

describe('webhook delivery', () => {
  it('sends each event signed by the Standard Webhooks scheme, and records the request', async () => {
    // The official library checks the timestamp against its own clock.
    h.clock.advance(Date.now() - h.clock.now());
    const created = await endpoint(['notification.attempt.updated', 'notification.completed']);
    const { sent } = await deliveredSend();
    expect((await runNext())?.error).toBeNull();
    expect((await runNext())?.error).toBeNull();
    expect(await runNext()).toBeNull();

    expect(receiver.received.map((request) => JSON.parse(request.body).type)).toEqual([
      'notification.attempt.updated',
      'notification.completed',
    ]);
    const [first] = receiver.received;
    expect(first!.headers['content-type']).toBe('application/json');
    expect(first!.headers['user-agent']).toBe('Tidings');
    expect(first!.headers['webhook-id']).toMatch(/^msg_/);
    expect(first!.headers['webhook-timestamp']).toBe(String(Math.floor(h.clock.now() / 1000)));
    expect(first!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // The official library verifies it with the endpoint's secret.
    const verified = new Webhook(created.secret!).verify(first!.body, {
      'webhook-id': first!.headers['webhook-id'] as string,
      'webhook-timestamp': first!.headers['webhook-timestamp'] as string,
      'webhook-signature': first!.headers['webhook-signature'] as string,
    });
    expect(verified).toMatchObject({
      type: 'notification.attempt.updated',
      data: { notification_id: sent.id, recipient: 'ann', attempt: { id: sent.attempts[0]!.id, status: 'delivered' } },
    });
    const completed = JSON.parse(receiver.received[1]!.body);
    const notification = await (await h.request(`/v1/notifications/${sent.id}`, { key: h.liveKey })).json();
    expect(completed.data).toEqual(notification);

    const [message] = await h.tidings.admin.listWebhookMessages(created.id, { status: 'delivered', limit: 1 });
    const detail = await h.tidings.admin.getWebhookMessage(message!.id);
    expect(detail).toMatchObject({
      object: 'webhook_message',
      status: 'delivered',
      event_type: 'notification.completed',
      endpoint_id: created.id,
      attempts: [{ status_code: 200, outcome: 'succeeded', response_excerpt: 'ok', error: null }],
    });
    // The secret is in no message, answer or request header but the signature.
    expect(JSON.stringify(detail)).not.toContain(created.secret!.slice(6));
  });

  it('signs with both secrets during a roll’s grace, and with the new one only after it', async () => {
    h.clock.advance(Date.now() - h.clock.now());
    const created = await endpoint(['browser.connected']);
    const rolled = await h.tidings.admin.rollWebhookSecret(created.id, { graceSeconds: 60 });
    await h.connectBrowser('ann');
    await runNext();
    h.clock.advance(61_000);
    await h.connectBrowser('bob');
    await runNext();
    const [during, after] = receiver.received;
    expect(during!.headers['webhook-signature']!.toString().split(' ')).toHaveLength(2);
    expect(after!.headers['webhook-signature']!.toString().split(' ')).toHaveLength(1);
    const verify = (secret: string, request: Received) =>
      new Webhook(secret).verify(request.body, {
        'webhook-id': request.headers['webhook-id'] as string,
        'webhook-timestamp': request.headers['webhook-timestamp'] as string,
        'webhook-signature': request.headers['webhook-signature'] as string,
      });
    expect(verify(created.secret!, during!)).toMatchObject({ type: 'browser.connected' });
    expect(verify(rolled.secret!, during!)).toMatchObject({ type: 'browser.connected' });
    expect(verify(rolled.secret!, after!)).toMatchObject({ type: 'browser.connected' });
    expect(() => verify(created.secret!, after!)).toThrow();
  });

  it('retries a 5xx with the same message id, after a jittered delay of the schedule, and delivers it', async () => {
    await endpoint();
    await h.connectBrowser('ann');
    receiver.script.push({ status: 503, body: 'down' });
    const first = await runNext();
    expect(first?.error?.retryAfterMs).toBe(WEBHOOK_RETRY_SCHEDULE_MS[0]! / 2);
    expect(await runNext()).toBeNull();
    h.clock.advance(WEBHOOK_RETRY_SCHEDULE_MS[0]! / 2);
    expect((await runNext())?.error).toBeNull();
    const [a, b] = receiver.received;
    expect(a!.headers['webhook-id']).toBe(b!.headers['webhook-id']);
    const detail = await h.tidings.admin.getWebhookMessage(a!.headers['webhook-id'] as string);
    expect(detail.status).toBe('delivered');
    expect(detail.attempts.map((attempt) => [attempt.status_code, attempt.outcome, attempt.error])).toEqual([
      [503, 'failed', 'HTTP 503'],
      [200, 'succeeded', null],
    ]);
    expect(outcomes).toEqual(['failed', 'succeeded']);
  });

  it('waits as long as a 429’s Retry-After asks, up to 10 hours', async () => {
    await endpoint();
    await h.connectBrowser('ann');
    receiver.script.push({ status: 429, headers: { 'retry-after': '120' } });
    expect((await runNext())?.error?.retryAfterMs).toBe(120_000);
    expect(webhookRetryDelay(1, 86_400_000, () => 0)).toBe(10 * 3_600_000);
    expect(webhookRetryDelay(1, null, () => 0.999)).toBeLessThan(WEBHOOK_RETRY_SCHEDULE_MS[0]!);
    expect(webhookRetryDelay(WEBHOOK_RETRY_SCHEDULE_MS.length + 1, null, () => 0.5)).toBeNull();
  });

  it('counts a timeout, a redirect and a refused address as failures', async () => {
    await endpoint();
    await h.connectBrowser('ann');
    await h.connectBrowser('bob');
    await h.connectBrowser('cyd');
    receiver.script.push('hang', { status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    const timing = kinds({ timeoutMs: 200 }).webhook!;
    await runNext(timing);
    await runNext();
    await runNext(kinds({ allowPrivateAddresses: false }).webhook!);
    expect(receiver.received.map((request) => request.path)).toEqual(['/hook', '/hook']);
    const messages = await h.tidings.admin.listWebhookMessages(
      (await h.tidings.admin.listWebhookEndpoints(h.project.id))[0]!.id,
    );
    const outcomes = await Promise.all(
      messages.reverse().map(async (message) => (await h.tidings.admin.getWebhookMessage(message.id)).attempts[0]),
    );
    expect(outcomes.map((attempt) => [attempt?.outcome, attempt?.status_code])).toEqual([
      ['timeout', null],
      ['failed', 302],
      ['refused', null],
    ]);
    expect(outcomes[1]!.error).toContain('redirects are not followed');
  });

  it('fails a message after the last request of the schedule', async () => {
    const created = await endpoint();
    await h.connectBrowser('ann');
    for (let i = 0; i <= WEBHOOK_RETRY_SCHEDULE_MS.length; i++) receiver.script.push({ status: 500 });
    let last: Awaited<ReturnType<typeof runNext>> = null;
    for (let i = 0; i <= WEBHOOK_RETRY_SCHEDULE_MS.length; i++) {
      last = await runNext();
      expect(last).not.toBeNull();
      h.clock.advance(10 * 3_600_000);
    }
    expect(last?.error?.retryable).toBe(false);
    expect(await runNext()).toBeNull();
    const [message] = await h.tidings.admin.listWebhookMessages(created.id);
    expect(message).toMatchObject({
      status: 'failed',
      attempts: WEBHOOK_RETRY_SCHEDULE_MS.length + 1,
      next_attempt_at: null,
    });
  });

  it('disables an endpoint failing for 3 days, with an audit entry and a mail to the account', async () => {
    const created = await endpoint();
    await h.connectBrowser('ann');
    receiver.script.push({ status: 500 }, { status: 500 });
    await runNext();
    h.clock.advance(WEBHOOK_DISABLE_AFTER_MS - 1);
    await runNext();
    expect((await h.tidings.admin.getWebhookEndpoint(created.id)).status).toBe('enabled');
    await h.connectBrowser('bob');
    receiver.script.push({ status: 500 });
    h.clock.advance(1);
    await runNext();
    const disabled = await h.tidings.admin.getWebhookEndpoint(created.id);
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'Every request failed for 3 days' });
    expect(audits).toEqual([
      {
        projectId: h.project.id,
        action: 'webhook.disabled',
        detail: `${created.url} (${created.id})`,
        reason: 'Every request failed for 3 days',
      },
    ]);
    expect(mailer.sent).toMatchObject([{ to: 'owner@example.com', subject: 'A webhook endpoint was disabled' }]);
    expect(mailer.sent[0]!.text).not.toContain(created.secret!);
    // A message of the disabled endpoint fails without a request.
    const before = receiver.received.length;
    h.clock.advance(10 * 3_600_000);
    await runNext();
    expect(receiver.received.length).toBe(before);
  });

  it('keeps an endpoint’s messages of one key in order, one at a time', async () => {
    await endpoint(['notification.attempt.updated']);
    const browser = await h.connectBrowser('ann');
    const sent = (await (await h.send({ recipient: 'ann', title: 'Hi' })).json()) as { attempts: { id: string }[] };
    const attemptId = sent.attempts[0]!.id;
    for (const type of ['delivered', 'displayed', 'clicked']) {
      await h.request('/v1/events', {
        method: 'POST',
        json: {
          browser_id: browser.browserId,
          browser_secret: browser.secret,
          events: [{ attempt_id: attemptId, type }],
        },
      });
      h.clock.advance(1);
    }
    receiver.script.push({ status: 500 });
    await runNext();
    // The first waits for its retry: the later ones of its key wait behind it.
    expect(await runNext()).toBeNull();
    h.clock.advance(WEBHOOK_RETRY_SCHEDULE_MS[0]!);
    for (let i = 0; i < 3; i++) await runNext();
    const sentStates = receiver.received.map((request) => {
      const { attempt } = JSON.parse(request.body).data;
      return [attempt.delivered_at !== null, attempt.displayed_at !== null, attempt.clicked_at !== null];
    });
    expect(sentStates).toEqual([
      [true, false, false],
      [true, false, false],
      [true, true, false],
      [true, true, true],
    ]);
  });

  it('wakes a runner at once when a write records a message, without waiting for its poll', async () => {
    await endpoint(['browser.connected']);
    const runner = createJobRunner({
      store: h.store,
      kinds: webhookJobs({ store: h.store, sender: localSender(), logger: silentLogger }),
      logger: silentLogger,
      pollMs: 60_000,
    });
    runner.start();
    try {
      // The runner's first claim found nothing; only a wake-up brings it back within the test.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await h.connectBrowser('ann');
      const deadline = Date.now() + 5000;
      while (receiver.received.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(receiver.received).toHaveLength(1);
    } finally {
      await runner.stop();
    }
  });

  it('delivers every message exactly once with two runners on one store', async () => {
    await endpoint(['browser.connected']);
    const runnerKinds = webhookJobs({ store: h.store, sender: localSender(), logger: silentLogger });
    const runners = ['a', 'b'].map((owner) =>
      createJobRunner({ store: h.store, kinds: runnerKinds, owner, logger: silentLogger, pollMs: 20, concurrency: 4 }),
    );
    for (const runner of runners) runner.start();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await h.connectBrowser(`r${i}`)).browserId);
    const deadline = Date.now() + 10_000;
    while (receiver.received.length < 20 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const runner of runners) await runner.stop();
    const messageIds = receiver.received.map((request) => request.headers['webhook-id']);
    expect(new Set(messageIds).size).toBe(20);
    expect(messageIds.length).toBe(20);
    expect(new Set(receiver.received.map((request) => JSON.parse(request.body).data.browser_id))).toEqual(ids);
  });
});

describe('webhook message admin', () => {
  it('resends a message with its id, replays an endpoint’s messages since a time, and sends a test event', async () => {
    const created = await endpoint(['browser.connected']);
    await h.connectBrowser('ann');
    h.clock.advance(1000);
    await h.connectBrowser('bob');
    await runNext();
    await runNext();
    const [bob, ann] = await h.tidings.admin.listWebhookMessages(created.id);

    const resent = await h.tidings.admin.resendWebhookMessage(ann!.id);
    expect(resent).toMatchObject({ id: ann!.id, status: 'pending', delivered_at: null });
    await runNext();
    expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([ann!.id, bob!.id, ann!.id]);

    expect(await h.tidings.admin.replayWebhookMessages(created.id, { since: h.clock.now() - 1000 })).toEqual({
      count: 2,
    });
    await runNext();
    await runNext();
    expect(receiver.received.slice(3).map((request) => request.headers['webhook-id'])).toEqual([ann!.id, bob!.id]);

    // Sent whatever the event types the endpoint wants.
    const test = await h.tidings.admin.sendTestWebhookEvent(created.id);
    expect(test).toMatchObject({ event_type: 'webhook.test', status: 'pending', endpoint_id: created.id });
    await runNext();
    expect(JSON.parse(receiver.received.at(-1)!.body)).toMatchObject({
      type: 'webhook.test',
      data: { endpoint_id: created.id },
    });
  });

  it('resends a retrying message at once through the job runner’s own schedule, and replays it too', async () => {
    const created = await endpoint(['browser.connected']);
    // The endpoint's first answer asks for 15 minutes; the clock does not move in this test, so
    // only a resend that makes the message due now can bring the next request.
    receiver.script.push({ status: 500, headers: { 'retry-after': '900' } });
    const runner = createJobRunner({ store: h.store, kinds: kinds(), clock: h.clock, logger: silentLogger });
    runner.start();
    try {
      const message = await h.tidings.admin.sendTestWebhookEvent(created.id);
      // The runner has put the job back for its retry (a resend while the request is in flight
      // waits for its outcome: the message is being sent right then).
      const retryScheduled = () =>
        until(() => h.store.listJobs({ projectId: h.project.id, kind: 'webhook', status: 'pending', limit: 10 }), {
          accept: (jobs) => jobs.some((job) => job.runAt === h.clock.now() + 900_000),
          what: 'the job waiting 15 minutes for its retry',
        });
      await retryScheduled();
      const retrying = await h.tidings.admin.getWebhookMessage(message.id);
      expect(retrying).toMatchObject({ status: 'pending', next_attempt_at: isoTime(h.clock.now() + 900_000) });

      const resent = await h.tidings.admin.resendWebhookMessage(message.id);
      expect(Date.parse(resent.next_attempt_at!) - h.clock.now()).toBeLessThanOrEqual(1000);
      const delivered = await until(() => h.tidings.admin.getWebhookMessage(message.id), {
        accept: (found) => found.status === 'delivered',
        what: 'the resent message, delivered by the runner',
      });
      expect(delivered.attempts.map((attempt) => attempt.status_code)).toEqual([500, 200]);

      // Replay takes a retrying message too, instead of skipping it.
      receiver.script.push({ status: 503, headers: { 'retry-after': '900' } });
      const second = await h.tidings.admin.sendTestWebhookEvent(created.id);
      await retryScheduled();
      expect(await h.tidings.admin.replayWebhookMessages(created.id, { since: h.clock.now() - 1 })).toEqual({
        count: 2,
      });
      const replayed = await until(() => h.tidings.admin.getWebhookMessage(second.id), {
        accept: (found) => found.status === 'delivered',
        what: 'the replayed retrying message, delivered',
      });
      expect(replayed.attempts.map((attempt) => attempt.status_code)).toEqual([503, 200]);
    } finally {
      await runner.stop();
    }
  });

  it('answers NOT_FOUND for unknown ids and VALIDATION_FAILED for bad options', async () => {
    const created = await endpoint();
    const code = (promise: Promise<unknown>) =>
      promise.then(
        () => 'resolved',
        (error: TidingsError) => error.code,
      );
    expect(await code(h.tidings.admin.getWebhookMessage('msg_unknown'))).toBe('NOT_FOUND');
    expect(await code(h.tidings.admin.resendWebhookMessage('msg_unknown'))).toBe('NOT_FOUND');
    expect(await code(h.tidings.admin.listWebhookMessages('whe_unknown'))).toBe('NOT_FOUND');
    expect(await code(h.tidings.admin.replayWebhookMessages('whe_unknown', { since: 0 }))).toBe('NOT_FOUND');
    expect(await code(h.tidings.admin.sendTestWebhookEvent('whe_unknown'))).toBe('NOT_FOUND');
    expect(await code(h.tidings.admin.listWebhookMessages(created.id, { limit: 101 }))).toBe('VALIDATION_FAILED');
    expect(await code(h.tidings.admin.listWebhookMessages(created.id, { status: 'done' as 'pending' }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await code(h.tidings.admin.replayWebhookMessages(created.id, { since: Number.NaN }))).toBe(
      'VALIDATION_FAILED',
    );
  });

  it('sends no event of test mode', async () => {
    const created = await endpoint();
    const browser = await h.connectBrowser('ann');
    await runNext();
    const sent = (await (await h.send({ recipient: 'ann', title: 'Hi' }, h.testKey)).json()) as {
      attempts: { id: string }[];
    };
    await h.request('/v1/events', {
      method: 'POST',
      json: {
        browser_id: browser.browserId,
        browser_secret: browser.secret,
        events: [{ attempt_id: sent.attempts[0]!.id, type: 'displayed' }],
      },
    });
    expect((await h.tidings.admin.listWebhookMessages(created.id)).map((message) => message.event_type)).toEqual([
      'browser.connected',
    ]);
  });
});
