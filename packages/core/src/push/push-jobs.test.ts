import { startTestPushService, type TestPushService } from '@tidings/test-support/push-service.js';
import { testCertificate } from '@tidings/test-support/tls-certificate.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/harness.js';
import { createMemoryHub, type HubMessage, inbox, JobError, noopMetrics, requestLog, silentLogger } from '../index.js';
import { createOutboundSender, webPush } from '../node/index.js';
import type { ClaimedJob } from '../store.js';
import { type PushJobsOptions, pushJobs } from './delivery.js';

/**
 * The `push` job kind against a push service of the tests' own, job by job: claimed from the
 * store and handed to the handler as a runner would, with the harness's clock.
 */
const PUSH = {
  vapidSubject: 'mailto:ops@example.com',
  allowedHosts: ['127.0.0.1'],
  allowHttp: true,
  allowPrivateAddresses: true,
  graceMs: 1000,
};

let h: Harness;
let service: TestPushService;
let hubMessages: HubMessage[];
let hub: ReturnType<typeof createMemoryHub>;
let handler: (job: ClaimedJob) => Promise<void>;

beforeEach(async () => {
  hub = createMemoryHub();
  hubMessages = [];
  hub.subscribe((message) => hubMessages.push(message));
  // The jobs are claimed and run by the tests, one by one: the instance runs none.
  h = await createHarness({ extra: { features: [inbox(), requestLog(), webPush(PUSH)], jobs: false, hub } });
  service = await startTestPushService();
  const kinds = pushHandler({ clock: h.clock, logger: silentLogger, hub });
  const push = kinds.push!;
  handler = (job) => run(push, job);
});
afterEach(async () => {
  await h.close();
});

/**
 * The `push` job kind on the harness's store, sending with the outbound sender `webPush()` would
 * make for `policy` (the tests' push service by default).
 */
function pushHandler(
  options: Omit<PushJobsOptions, 'store' | 'vapidSubject' | 'sender'>,
  policy: { allowedHosts?: string[]; allowHttp?: boolean; ca?: string } = {},
) {
  const sender = createOutboundSender({
    allowHttp: policy.allowHttp ?? PUSH.allowHttp,
    allowPrivateAddresses: PUSH.allowPrivateAddresses,
    allowedHosts: policy.allowedHosts ?? PUSH.allowedHosts,
    ...(policy.ca === undefined ? {} : { ca: policy.ca }),
    http2: true,
  });
  return pushJobs({ store: h.store, vapidSubject: PUSH.vapidSubject, sender, ...options });
}

/** Runs a claimed job, then records it finished as a runner would, so the key's next job can be claimed. */
async function run(push: NonNullable<ReturnType<typeof pushJobs>['push']>, job: ClaimedJob): Promise<void> {
  try {
    await push(job, { signal: new AbortController().signal });
  } finally {
    await h.store.completeJob({ id: job.id, owner: 'test', now: h.clock.now(), keepUntil: h.clock.now() + 1000 });
  }
}

async function subscribed(recipient: string) {
  const browser = await h.connectBrowser(recipient);
  const subscription = service.subscribe();
  const saved = await h.request(`/v1/browsers/${browser.browserId}/push-subscription`, {
    method: 'PUT',
    json: {
      browser_secret: browser.secret,
      endpoint: subscription.endpoint,
      keys: { p256dh: subscription.p256dh, auth: subscription.auth },
    },
  });
  expect(saved.status).toBe(200);
  return { ...browser, subscription };
}

async function sendAndClaim(recipient: string, body: Record<string, unknown> = {}) {
  const sent = await (await h.send({ recipient, title: 'Hi', ...body })).json();
  h.clock.advance(PUSH.graceMs);
  const [job] = await h.store.claimJobs({
    kinds: ['push'],
    limit: 1,
    now: h.clock.now(),
    leaseMs: 60_000,
    owner: 'test',
  });
  if (!job) throw new Error('no push job was due');
  return { sent, job };
}

async function attempt(notificationId: string) {
  const found = await h.store.getNotification({ projectId: h.project.id, id: notificationId });
  return found!.attempts[0]!;
}

describe('the push job kind', () => {
  it('sends nothing for an attempt delivered meanwhile, or whose notification expired', async () => {
    const browser = await subscribed('u');
    const { sent, job } = await sendAndClaim('u', { ttl: 60 });
    await h.store.applyReceipts({
      browserId: browser.browserId,
      receipts: [{ type: 'delivered', attemptId: sent.attempts[0].id, at: h.clock.now() }],
      now: h.clock.now(),
    });
    await handler(job);
    const late = await sendAndClaim('u', { ttl: 60 });
    h.clock.advance(60_000);
    await handler(late.job);
    expect(service.answered).toEqual([]);
    expect((await attempt(late.sent.id)).status).toBe('accepted');
  });

  it('records an accepted push once, with the TTL left', async () => {
    await subscribed('u');
    const { sent, job } = await sendAndClaim('u', { ttl: 120 });
    await handler(job);
    expect(service.received).toHaveLength(1);
    expect(service.received[0]!.ttl).toBe(119);
    expect(await attempt(sent.id)).toMatchObject({
      status: 'sent',
      sentVia: 'push',
      pushAcceptedAt: h.clock.now(),
    });
  });

  it('shows each push message on its notification’s detail: the push service’s refusal, then its acceptance', async () => {
    const browser = await subscribed('u');
    service.script(browser.subscription.id, [{ status: 503, retryAfter: '7' }]);
    const { sent, job } = await sendAndClaim('u');
    const { push } = pushHandler({ clock: h.clock, logger: silentLogger });
    const error = await Promise.resolve(push!(job, { signal: new AbortController().signal })).then(
      () => null,
      (thrown: unknown) => thrown as JobError,
    );
    await h.store.retryJob({ id: job.id, owner: 'test', runAt: h.clock.now(), error: error!.message });
    const retrying = await h.tidings.admin.getNotificationDetail(h.project.id, sent.id);
    expect(retrying.push_requests).toEqual([
      expect.objectContaining({
        attempt_id: sent.attempts[0].id,
        browser_id: browser.browserId,
        status: 'pending',
        requests: 1,
        last_error: 'push service answered 503',
      }),
    ]);
    const [again] = await h.store.claimJobs({
      kinds: ['push'],
      limit: 1,
      now: h.clock.now(),
      leaseMs: 60_000,
      owner: 'test',
    });
    await run(handler, again!);
    const accepted = await h.tidings.admin.getNotificationDetail(h.project.id, sent.id);
    expect(accepted.push_requests).toEqual([expect.objectContaining({ status: 'accepted', requests: 2 })]);
  });

  it('asks for a retry after a 503, honouring Retry-After', async () => {
    const browser = await subscribed('u');
    service.script(browser.subscription.id, [{ status: 503, retryAfter: '7' }]);
    const { sent, job } = await sendAndClaim('u');
    const error = await handler(job).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(JobError);
    expect(error).toMatchObject({ retryable: true });
    expect((error as JobError).retryAfterMs).toBeGreaterThan(5000);
    expect((error as JobError).retryAfterMs).toBeLessThanOrEqual(7000);
    expect((await attempt(sent.id)).status).toBe('accepted');
  });

  it('disconnects a browser whose subscription is gone, and closes its streams', async () => {
    const browser = await subscribed('u');
    service.expire(browser.subscription.id);
    await hub.follow!(browser.browserId);
    const { sent, job } = await sendAndClaim('u');
    await handler(job);
    expect(await attempt(sent.id)).toMatchObject({ status: 'failed', reason: 'browser_disconnected' });
    expect((await h.store.findBrowser(browser.browserId))?.browser.connected).toBe(false);
    expect(await h.store.getPushSubscription(browser.browserId)).toBeNull();
    expect(hubMessages).toContainEqual({ type: 'close-browser', browserId: browser.browserId });
  });

  it('fails the attempt, for good, when the endpoint is refused or the service rejects the message', async () => {
    const browser = await subscribed('u');
    service.script(browser.subscription.id, [{ status: 413 }]);
    const { sent, job } = await sendAndClaim('u');
    await expect(handler(job)).rejects.toMatchObject({ retryable: false });
    expect(await attempt(sent.id)).toMatchObject({ status: 'failed', reason: 'push_rejected' });

    // A handler whose allow-list no longer holds the endpoint's host sends nothing.
    const ended: unknown[][] = [];
    const strict = pushHandler(
      { clock: h.clock, metrics: { ...noopMetrics, attemptsEnded: (...args: unknown[]) => ended.push(args) } },
      { allowedHosts: ['fcm.googleapis.com'] },
    ).push!;
    const next = await sendAndClaim('u');
    await expect(run(strict, next.job)).rejects.toMatchObject({
      retryable: false,
    });
    expect(await attempt(next.sent.id)).toMatchObject({ status: 'failed', reason: 'push_rejected' });
    expect(service.answered.map((answer) => answer.status)).toEqual([413]);
    expect(ended).toEqual([['failed', 'push_rejected', 1]]);
  });

  it('sends over HTTP/2 to a push service that offers it, several messages at once', async () => {
    const tls = await startTestPushService({ http2: true });
    const kinds = pushHandler(
      { clock: h.clock, logger: silentLogger },
      { allowHttp: false, ca: testCertificate().cert },
    );
    service = tls;
    const sent = [];
    for (const recipient of ['a', 'b', 'c']) {
      await subscribed(recipient);
      sent.push(await sendAndClaim(recipient));
    }
    await Promise.all(sent.map(({ job }) => run(kinds.push!, job)));
    expect(tls.versions).toEqual(['2.0', '2.0', '2.0']);
    expect(tls.received).toHaveLength(3);
    for (const { sent: notification } of sent) {
      expect(tls.received.filter((push) => push.payload.includes(notification.id))).toHaveLength(1);
      expect(await attempt(notification.id)).toMatchObject({ status: 'sent', sentVia: 'push' });
    }
  });
});
