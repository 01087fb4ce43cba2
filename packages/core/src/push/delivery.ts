// The `push` job kind: one Web Push message for one attempt (docs/web-push.md).

import { toDelivery } from '../delivery/stream/delivery.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { Hub } from '../ports/hub.js';
import type { ClaimedJob } from '../ports/jobs.js';
import { createConsoleLogger, type Logger } from '../ports/logger.js';
import { type Metrics, noopMetrics } from '../ports/metrics.js';
import type { OutboundSender } from '../ports/outbound.js';
import type { BrowserStore, NotificationStore, PushStore } from '../ports/store.js';
import { JobError, type JobHandler } from '../shared/job-runner.js';
import { type SecretSealer, unsealedSecrets } from '../shared/sealing/sealer.js';
import { pushEnvelope } from './envelope.js';
import { checkVapidSubject } from './options.js';
import { PUSH_JOB_KIND, type PushJobPayload } from './send-jobs.js';
import { ensureVapidKeys, VAPID_KEY_PLACE } from './vapid-keys.js';
import { pushOutcome, pushRequest, pushTopic } from './web-push.js';

/** Options of {@link pushJobs}. */
export interface PushJobsOptions {
  store: BrowserStore & NotificationStore & PushStore;
  /** The contact push services see: `mailto:…` or an `https:` URL (`vapidSubject` of the Web Push feature). */
  vapidSubject: string;
  /**
   * How messages go out: an outbound sender whose policy allows the push services' hosts (the
   * Web Push feature of `@tidings/core/node` makes one that speaks HTTP/2).
   */
  sender: OutboundSender;
  /** @default systemClock */
  clock?: Clock;
  /** @default createConsoleLogger() */
  logger?: Logger;
  /**
   * The instance's hub, to close the open streams of a browser disconnected because its
   * subscription is gone (else they close at their next catch-up or resume). @default none
   */
  hub?: Hub;
  /** Counts the attempts a push ends (`failed`, `push_rejected` or `browser_disconnected`). @default noopMetrics */
  metrics?: Metrics;
  /** Opens the stored VAPID private key (sealed under the operator's keys). @default secrets stored unsealed */
  sealer?: SecretSealer;
}

function payloadOf(job: ClaimedJob): PushJobPayload {
  const payload = job.payload as Partial<PushJobPayload> | null;
  if (
    typeof payload?.attemptId !== 'string' ||
    typeof payload.notificationId !== 'string' ||
    typeof payload.browserId !== 'string'
  ) {
    throw new JobError('the push job has no attempt, notification and browser', { retryable: false });
  }
  return payload as PushJobPayload;
}

/**
 * The handler of the `push` job kind, which the Web Push feature gives its instance's job runner.
 *
 * Each job sends one attempt to its browser's push subscription, unless the attempt is final
 * already (an open tab confirmed it: nothing is shown twice), its notification expired, or the
 * browser has no subscription any more. The answer decides the rest: 201 records the attempt as
 * sent by `push`; 429 and 5xx are retried (after `Retry-After` when given) until the
 * notification expires; 404 and 410 remove the subscription and disconnect the browser; any
 * other refusal (413, 400, VAPID refused) fails the attempt with reason `push_rejected`.
 */
export function pushJobs(options: PushJobsOptions): Record<string, JobHandler> {
  const { store } = options;
  const subject = checkVapidSubject(options.vapidSubject);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createConsoleLogger();
  const metrics = options.metrics ?? noopMetrics;
  const sealer = options.sealer ?? unsealedSecrets;

  /** Fails the attempt as rejected by its push service, counted once if this call ended it. */
  async function reject(attemptId: string, now: number): Promise<void> {
    if (await store.failAttempt({ attemptId, reason: 'push_rejected', now })) {
      metrics.attemptsEnded('failed', 'push_rejected', 1);
    }
  }
  const { sender } = options;

  async function push(job: ClaimedJob): Promise<void> {
    const { attemptId, notificationId, browserId } = payloadOf(job);
    const found = await store.getNotification({ projectId: job.projectId, id: notificationId });
    const attempt = found?.attempts.find((candidate) => candidate.id === attemptId);
    // Delivered over a stream, failed, expired, or deleted with its project: nothing to send.
    if (!found || !attempt || attempt.final) return;
    const now = clock.now();
    const { notification } = found;
    const secondsLeft = Math.floor((notification.expiresAt - now) / 1000);
    // The sweep expires the attempt; a message the browser would get too late is not sent.
    if (secondsLeft < 1) return;
    const subscription = await store.getPushSubscription(browserId);
    if (!subscription) return;
    const keys = await ensureVapidKeys(store, now, sealer);
    const privateKey = sealer.open(keys.privateKey, VAPID_KEY_PLACE);
    if (privateKey.kind !== 'opened' && privateKey.kind !== 'clear') {
      // Never signed with: the job is retried, and the message sent once the key is there.
      logger.error('the stored VAPID private key does not open; nothing is pushed', {
        task: 'push',
        reason:
          privateKey.kind === 'unknown-key'
            ? 'sealed under a key this instance does not hold'
            : 'altered or from another row',
      });
      throw new JobError('the VAPID private key does not open with the secrets keys held');
    }

    let request: ReturnType<typeof pushRequest>;
    try {
      request = pushRequest({
        subscription,
        payload: pushEnvelope(toDelivery(notification, attempt)),
        vapid: { publicKey: keys.publicKey, privateKey: privateKey.value, subject },
        ttlSeconds: secondsLeft,
        urgency: 'normal',
        ...(notification.tag === null ? {} : { topic: pushTopic(notification.tag) }),
      });
    } catch (error) {
      await reject(attemptId, now);
      throw new JobError(`the push message could not be built: ${(error as Error).message}`, { retryable: false });
    }

    const outcome = pushOutcome(await sender.send(request));
    switch (outcome.kind) {
      case 'accepted':
        await store.markAttemptPushed({ attemptId, now: clock.now() });
        return;
      case 'gone': {
        // The subscription ended (permission revoked, browser data cleared): the browser is gone.
        const disconnected = await store.disconnectBrowser({
          browserId,
          reason: 'browser_disconnected',
          now: clock.now(),
        });
        if (disconnected.kind === 'disconnected' && disconnected.failedAttemptIds.length > 0) {
          metrics.attemptsEnded('failed', 'browser_disconnected', disconnected.failedAttemptIds.length);
        }
        await options.hub?.publish([{ type: 'close-browser', browserId }]);
        logger.info('push subscription gone; browser disconnected', {
          task: 'push',
          browser_id: browserId,
          status: outcome.status,
        });
        return;
      }
      case 'retry':
        throw new JobError(outcome.reason, outcome.retryAfterMs === null ? {} : { retryAfterMs: outcome.retryAfterMs });
      case 'failed':
        await reject(attemptId, clock.now());
        throw new JobError(outcome.reason, { retryable: false });
    }
  }

  return { [PUSH_JOB_KIND]: push };
}
