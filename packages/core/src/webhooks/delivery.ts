// The `webhook` job kind: one request of one webhook message (docs/webhooks.md).

import { type Clock, systemClock } from '../ports/clock.js';
import type { ClaimedJob } from '../ports/jobs.js';
import { createConsoleLogger, type Logger } from '../ports/logger.js';
import type { Mailer } from '../ports/mailer.js';
import { type Metrics, noopMetrics } from '../ports/metrics.js';
import type { OutboundResult, OutboundSender } from '../ports/outbound.js';
import type {
  AccountStore,
  WebhookAttemptOutcome,
  WebhookEndpointRecord,
  WebhookEndpointStore,
  WebhookMessageAttemptRecord,
  WebhookMessageRecord,
  WebhookMessageStore,
} from '../ports/store.js';
import { JobError, type JobHandler } from '../shared/job-runner.js';
import { type SecretSealer, unsealedSecrets } from '../shared/sealing/sealer.js';
import { webhookSecretPlace } from './endpoint-admin.js';
import { WEBHOOK_JOB_KIND, type WebhookJobPayload } from './events.js';
import { signWebhook } from './signature.js';

/**
 * The delay ceilings before each retry of a message: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
 * A message is sent at most 8 times; the delay before retry _n_ is uniform between 0 and the
 * _n_-th ceiling (full jitter).
 */
export const WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** The longest `Retry-After` honoured: 10 hours. */
export const WEBHOOK_MAX_RETRY_AFTER_MS = 10 * 3_600_000;

/** How long every request to an endpoint fails before the endpoint is disabled: 3 days. */
export const WEBHOOK_DISABLE_AFTER_MS = 3 * 86_400_000;

/** The request's timeout. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/** The most of an answer's body kept with a request: 1 KiB. */
export const WEBHOOK_RESPONSE_EXCERPT_BYTES = 1024;

/** The reason an endpoint disabled for failing is given. */
export const WEBHOOK_FAILING_REASON = 'Every request failed for 3 days';

/** An entry of the audit log that the delivery writes (an endpoint disabled for failing). */
export interface WebhookAuditEntry {
  projectId: string;
  action: 'webhook.disabled';
  detail: string;
  reason: string;
}

/** Options of {@link webhookJobs}. */
export interface WebhookJobsOptions {
  store: AccountStore & WebhookEndpointStore & WebhookMessageStore;
  /**
   * How requests go out: an outbound sender with the webhooks' policy (the webhooks feature of
   * `@tidings/core/node` makes one: https only, public addresses only, a 15 s timeout).
   */
  sender: OutboundSender;
  /** @default systemClock */
  clock?: Clock;
  /** @default createConsoleLogger() */
  logger?: Logger;
  /** Counts each request by its outcome, with its duration. @default noopMetrics */
  metrics?: Metrics;
  /** Tells the project's account that its endpoint was disabled. @default none */
  mailer?: Mailer;
  /** Records an endpoint disabled for failing in the audit log (actor `system`). @default none */
  audit?: (entry: WebhookAuditEntry) => Promise<void>;
  /** A number in [0, 1) for the jitter. @default Math.random */
  random?: () => number;
  /** Opens the endpoints' stored secrets (sealed under the operator's keys). @default secrets stored unsealed */
  sealer?: SecretSealer;
}

function payloadOf(job: ClaimedJob): WebhookJobPayload {
  const payload = job.payload as Partial<WebhookJobPayload> | null;
  if (typeof payload?.messageId !== 'string') {
    throw new JobError('the webhook job has no message', { retryable: false });
  }
  return payload as WebhookJobPayload;
}

/** The start of a body, at most `bytes` bytes of UTF-8, cut at a whole character. */
export function excerptOf(body: string, bytes = WEBHOOK_RESPONSE_EXCERPT_BYTES): string | null {
  if (body.length === 0) return null;
  const encoded = new TextEncoder().encode(body);
  if (encoded.length <= bytes) return body;
  let end = bytes;
  // Back to the first byte of a character (not 10xxxxxx).
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(encoded.subarray(0, end));
}

/** What a request's result means for the message: delivered, or failed with an outcome. */
export function webhookAttemptOf(
  messageId: string,
  attemptedAt: number,
  result: OutboundResult,
): WebhookMessageAttemptRecord & { retryAfterMs: number | null } {
  switch (result.kind) {
    case 'answered': {
      const succeeded = result.status >= 200 && result.status < 300;
      let error: string | null = null;
      if (!succeeded) {
        error =
          result.status >= 300 && result.status < 400
            ? `HTTP ${result.status}: redirects are not followed`
            : `HTTP ${result.status}`;
      }
      return {
        messageId,
        attemptedAt,
        statusCode: result.status,
        latencyMs: Math.round(result.durationMs),
        outcome: succeeded ? 'succeeded' : 'failed',
        responseExcerpt: excerptOf(result.body),
        error,
        retryAfterMs: succeeded ? null : result.retryAfterMs,
      };
    }
    case 'failed':
      return {
        messageId,
        attemptedAt,
        statusCode: null,
        latencyMs: Math.round(result.durationMs),
        outcome: result.reason satisfies WebhookAttemptOutcome,
        responseExcerpt: null,
        error: result.message,
        retryAfterMs: null,
      };
    case 'refused':
      return {
        messageId,
        attemptedAt,
        statusCode: null,
        latencyMs: 0,
        outcome: 'refused',
        responseExcerpt: null,
        error: result.reason,
        retryAfterMs: null,
      };
  }
}

/**
 * The delay before the retry that follows request `attempt` (1 for the first request), or null
 * when the schedule is over: full jitter under the schedule's ceiling, or the answer's
 * `Retry-After` (at most 10 hours) when it asks for longer.
 */
export function webhookRetryDelay(attempt: number, retryAfterMs: number | null, random: () => number): number | null {
  const ceiling = WEBHOOK_RETRY_SCHEDULE_MS[attempt - 1];
  if (ceiling === undefined) return null;
  const jittered = Math.floor(random() * ceiling);
  if (retryAfterMs === null) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, WEBHOOK_MAX_RETRY_AFTER_MS));
}

/** What {@link openSigningSecrets} found: the secrets that sign, and the stored ones that did not open. */
export interface OpenedSigningSecrets {
  /** The current secret first (when it opened), then the previous one during a roll's grace. */
  secrets: string[];
  /** The columns whose stored value did not open: never used to sign. */
  unopened: Array<{ column: 'secret' | 'previous_secret'; reason: 'unknown-key' | 'broken' }>;
}

/**
 * The secrets that sign now, opened with the instance's keys: the current one, and the previous
 * one during a roll's grace. A value that does not open (a key not held, a value altered or
 * copied from another row) is left out and reported.
 */
export function openSigningSecrets(
  endpoint: WebhookEndpointRecord,
  now: number,
  sealer: SecretSealer = unsealedSecrets,
): OpenedSigningSecrets {
  const place = webhookSecretPlace(endpoint);
  const stored: Array<['secret' | 'previous_secret', string]> = [['secret', endpoint.secret]];
  if (
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt > now
  ) {
    stored.push(['previous_secret', endpoint.previousSecret]);
  }
  const opened: OpenedSigningSecrets = { secrets: [], unopened: [] };
  for (const [column, value] of stored) {
    const result = sealer.open(value, place);
    if (result.kind === 'opened' || result.kind === 'clear') opened.secrets.push(result.value);
    else opened.unopened.push({ column, reason: result.kind });
  }
  return opened;
}

/** The secrets that sign now: the current one, and the previous one during a roll's grace (those that open). */
export function signingSecrets(
  endpoint: WebhookEndpointRecord,
  now: number,
  sealer: SecretSealer = unsealedSecrets,
): string[] {
  return openSigningSecrets(endpoint, now, sealer).secrets;
}

/**
 * The handler of the `webhook` job kind, which the webhooks feature gives its instance's job runner.
 *
 * Each job sends one message to its endpoint, signed (Standard Webhooks) with the endpoint's
 * secrets, through the outbound sender (https only, no private addresses, no redirects, a 15 s
 * timeout), and records the request with the message's new status. A 2xx delivers it. Anything
 * else (another status, a timeout, a network error, a refused address) is retried on the
 * schedule of {@link WEBHOOK_RETRY_SCHEDULE_MS}, after `Retry-After` when the answer has one,
 * and the message fails after its last request. An endpoint all of whose requests have failed
 * for 3 days is disabled, recorded in the audit log, and its project's account is told by mail.
 * A message of a disabled endpoint fails without a request; one already delivered or failed
 * (a job run again after a lost lease) is not sent again.
 */
export function webhookJobs(options: WebhookJobsOptions): Record<string, JobHandler> {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createConsoleLogger();
  const random = options.random ?? Math.random;
  const metrics = options.metrics ?? noopMetrics;
  const { sender } = options;
  const sealer = options.sealer ?? unsealedSecrets;

  async function disableIfFailing(endpoint: WebhookEndpointRecord, now: number): Promise<void> {
    if (endpoint.status !== 'enabled' || endpoint.failingSince === null) return;
    if (now - endpoint.failingSince < WEBHOOK_DISABLE_AFTER_MS) return;
    const disabled = await store.disableFailingWebhookEndpoint({
      id: endpoint.id,
      failingSince: now - WEBHOOK_DISABLE_AFTER_MS,
      reason: WEBHOOK_FAILING_REASON,
      now,
    });
    // Another runner disabled it first, or a success came in between.
    if (!disabled) return;
    logger.warn('webhook endpoint disabled: every request failed for 3 days', {
      task: 'webhook',
      endpoint_id: disabled.id,
      project_id: disabled.projectId,
    });
    try {
      await options.audit?.({
        projectId: disabled.projectId,
        action: 'webhook.disabled',
        detail: `${disabled.url} (${disabled.id})`,
        reason: WEBHOOK_FAILING_REASON,
      });
    } catch (error) {
      logger.error('the audit entry of a disabled webhook endpoint was not written', {
        task: 'webhook',
        endpoint_id: disabled.id,
        error: (error as Error).message,
      });
    }
    if (options.mailer) {
      try {
        const project = await store.getProject(disabled.projectId);
        const account = project ? await store.getAccount(project.accountId) : null;
        if (project && account) {
          await options.mailer.send({
            to: account.email,
            subject: 'A webhook endpoint was disabled',
            text:
              `Every request to the webhook endpoint ${disabled.url} (${disabled.id}) of the project ` +
              `${project.name} (${project.id}) has failed for 3 days, so Tidings has disabled it and ` +
              'sends it no more events. Fix the endpoint, then enable it again: events of changes made ' +
              'while it was disabled are not sent; replay those you need from its message log.',
          });
        }
      } catch (error) {
        logger.error('the mail about a disabled webhook endpoint was not sent', {
          task: 'webhook',
          endpoint_id: disabled.id,
          error: (error as Error).message,
        });
      }
    }
  }

  async function fail(message: WebhookMessageRecord, error: string): Promise<void> {
    await store.recordWebhookAttempt({
      attempt: {
        messageId: message.id,
        attemptedAt: clock.now(),
        statusCode: null,
        latencyMs: 0,
        outcome: 'refused',
        responseExcerpt: null,
        error,
      },
      status: 'failed',
      nextAttemptAt: null,
    });
  }

  async function webhook(job: ClaimedJob): Promise<void> {
    const { messageId } = payloadOf(job);
    const found = await store.getWebhookMessage(messageId);
    // Purged, or deleted with its endpoint or project; or finished by an earlier run of the job.
    if (found?.message.status !== 'pending') return;
    const { message } = found;
    const endpoint = await store.getWebhookEndpoint(message.endpointId);
    if (!endpoint) return;
    if (endpoint.status !== 'enabled') {
      await fail(message, 'the endpoint is disabled');
      return;
    }

    const now = clock.now();
    const opened = openSigningSecrets(endpoint, now, sealer);
    for (const { column, reason } of opened.unopened) {
      logger.error('a stored webhook secret does not open; it is not used to sign', {
        task: 'webhook',
        endpoint_id: endpoint.id,
        project_id: endpoint.projectId,
        column,
        reason:
          reason === 'unknown-key' ? 'sealed under a key this instance does not hold' : 'altered or from another row',
      });
    }
    // Without the current secret nothing is sent: the message waits for the key (or a roll).
    if (opened.unopened.some(({ column }) => column === 'secret')) {
      throw new JobError("the endpoint's signing secret does not open with the secrets keys held");
    }
    const body = JSON.stringify(message.payload);
    const signed = signWebhook({
      id: message.id,
      timestampSeconds: Math.floor(now / 1000),
      payload: body,
      secrets: opened.secrets,
    });
    const result = await sender.send({
      url: endpoint.url,
      method: 'POST',
      headers: { ...signed, 'content-type': 'application/json', 'user-agent': 'Tidings' },
      body,
    });
    const { retryAfterMs, ...attempt } = webhookAttemptOf(message.id, now, result);
    metrics.webhookRequest(attempt.outcome, attempt.latencyMs);
    const succeeded = attempt.outcome === 'succeeded';
    const delay = succeeded ? null : webhookRetryDelay(job.attempts, retryAfterMs, random);
    const finishedAt = clock.now();
    const recorded = await store.recordWebhookAttempt({
      attempt,
      status: succeeded ? 'delivered' : delay === null ? 'failed' : 'pending',
      nextAttemptAt: delay === null ? null : finishedAt + delay,
    });
    if (succeeded || !recorded) return;
    if (recorded.endpoint) await disableIfFailing(recorded.endpoint, finishedAt);
    if (delay === null) {
      throw new JobError(`${attempt.error ?? attempt.outcome}; no retry left`, { retryable: false });
    }
    throw new JobError(attempt.error ?? attempt.outcome, { retryAfterMs: Math.max(1, delay) });
  }

  return { [WEBHOOK_JOB_KIND]: webhook };
}
