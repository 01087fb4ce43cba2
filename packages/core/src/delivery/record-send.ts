import type { Services } from '../pipeline/context.js';
import { TidingsError } from '../pipeline/errors.js';
import type { KeyMode, NotificationRecord, NotificationWithAttempts, ProjectRecord } from '../ports/records.js';
import type {
  CreateNotificationInput,
  CreateNotificationResult,
  IdempotencyInput,
  IdempotencyStore,
  NotificationStore,
  StoredResponse,
} from '../ports/store.js';
import { publishWithoutWaiting } from '../shared/hub/publish-without-waiting.js';
import { newId } from '../shared/ids.js';
import { sendJobsOf } from './hooks.js';
import { requestFingerprint } from './idempotency.js';
import type { NotificationBody } from './request-schemas.js';
import { serializeNotification } from './serialize.js';
import { toDelivery } from './stream/delivery.js';

/** The roles of the store a send uses. */
export type SendServices = Services<IdempotencyStore & NotificationStore>;

/** One send, validated, as the HTTP route and the in-process API both make it. */
export interface SendRequest {
  project: ProjectRecord;
  mode: KeyMode;
  /** The key that authenticated it; null for a send in process. */
  apiKeyId: string | null;
  /** The HTTP request's id; null for a send in process. */
  requestId: string | null;
  body: NotificationBody;
  /** What the fingerprint of the idempotency key is made of: the body as the caller gave it. */
  raw: unknown;
  idempotencyKey: string | null;
  now: number;
}

/** A send ready to record: what the store writes, and the key it holds in this process. */
export interface PreparedSend {
  input: CreateNotificationInput;
  /** `<project id>\n<key>`, or null for a send without an idempotency key. */
  inFlightKey: string | null;
}

/** What a send came to: recorded now, or the result stored under its idempotency key. */
export type SendOutcome =
  | { kind: 'created'; created: NotificationWithAttempts; response: StoredResponse; inboxVersion?: number | null }
  | { kind: 'replay'; response: StoredResponse };

/**
 * The steps of a send before its write (docs/api.md#idempotency): the fast path of the key (a
 * replay answers without writing, a mismatch is refused), the key held in this process while the
 * send runs (another send with it gets 409), the notification, and the push jobs. The caller
 * must {@link releaseSend} what this returns once the write is done, whatever its outcome.
 */
export async function prepareSend(
  services: SendServices,
  request: SendRequest,
): Promise<{ kind: 'replay'; response: StoredResponse } | { kind: 'prepared'; prepared: PreparedSend }> {
  const { options } = services;
  let idempotency: IdempotencyInput | null = null;
  let inFlightKey: string | null = null;
  if (request.idempotencyKey !== null) {
    idempotency = {
      key: request.idempotencyKey,
      fingerprint: requestFingerprint(request.raw, request.mode),
      expiresAt: request.now + options.idempotencyRetentionMs,
    };
    const stored = await options.store.findIdempotentResponse({
      projectId: request.project.id,
      key: idempotency.key,
      fingerprint: idempotency.fingerprint,
      now: request.now,
    });
    if (stored.kind === 'replay') return { kind: 'replay', response: { status: stored.status, body: stored.body } };
    if (stored.kind === 'mismatch') throw idempotencyMismatch();
    inFlightKey = `${request.project.id}\n${idempotency.key}`;
    if (services.sendsInFlight.has(inFlightKey)) {
      throw new TidingsError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running', {
        headers: { 'Retry-After': '1' },
      });
    }
    services.sendsInFlight.add(inFlightKey);
  }
  try {
    const notification = buildNotification(request, options.defaultTtlSeconds);
    // The jobs the instance's features add to a live send (Web Push, the unread reminder).
    const jobs =
      notification.mode === 'live' ? await sendJobsOf(services.hooks, { notification, body: request.body }) : null;
    const input: CreateNotificationInput = {
      notification,
      newAttemptId: () => newId('att', request.now),
      idempotency,
      // Not memoized: what a send created is never handed out again as the same object.
      render: (created) => ({ status: 201, body: serializeNotification(created) }),
      ...(jobs === null ? {} : { jobs }),
      ...(request.body.keep_for_inbox === true ? { keepForInbox: true } : {}),
    };
    return { kind: 'prepared', prepared: { input, inFlightKey } };
  } catch (error) {
    if (inFlightKey !== null) services.sendsInFlight.delete(inFlightKey);
    throw error;
  }
}

/** Lets go of the idempotency key a prepared send held in this process. */
export function releaseSend(services: SendServices, prepared: PreparedSend): void {
  if (prepared.inFlightKey !== null) services.sendsInFlight.delete(prepared.inFlightKey);
}

/** What the store's answer means for the caller: a refusal is thrown, a send is counted. */
export function sendOutcome(
  services: SendServices,
  input: CreateNotificationInput,
  result: CreateNotificationResult,
): SendOutcome {
  switch (result.kind) {
    case 'no-connected-browser':
      throw new TidingsError(
        'NO_CONNECTED_BROWSER',
        `Recipient ${input.notification.recipient} has no connected browser`,
      );
    case 'mismatch':
      throw idempotencyMismatch();
    case 'replay':
      // Another process recorded a send with this key first; the store waited for it.
      return { kind: 'replay', response: result.response };
    case 'created':
      countSend(services, input.notification.mode, result.created.attempts.length);
      return result;
  }
}

/**
 * A send through the store's own transaction, from the fast path to the hand-off: what
 * `POST /v1/notifications` and an in-process send without a transaction of the caller's run.
 */
export async function recordSend(services: SendServices, request: SendRequest): Promise<SendOutcome> {
  const prepared = await prepareSend(services, request);
  if (prepared.kind === 'replay') return prepared;
  try {
    const { input } = prepared.prepared;
    const outcome = sendOutcome(services, input, await services.options.store.createNotification(input));
    if (outcome.kind === 'created') {
      handOnCreated(services, outcome.created, request.requestId, outcome.inboxVersion ?? null);
    }
    return outcome;
  } finally {
    releaseSend(services, prepared.prepared);
  }
}

/** Hands a committed live send's attempts to the hub, without waiting. */
export function handOnCreated(
  services: SendServices,
  created: NotificationWithAttempts,
  requestId: string | null,
  inboxVersion: number | null = null,
) {
  const { notification } = created;
  if (notification.mode !== 'live') return;
  publishWithoutWaiting(
    services.hub,
    services.options.logger,
    created.attempts.map((attempt) => ({
      type: 'deliver',
      delivery: toDelivery(notification, attempt, inboxVersion),
    })),
    'hub publish failed after a send was recorded',
    requestId,
  );
}

function idempotencyMismatch(): TidingsError {
  return new TidingsError(
    'IDEMPOTENCY_MISMATCH',
    'This Idempotency-Key was used with another body or another mode; use a new key',
  );
}

/** A recorded send, for the metrics; a test-mode attempt is final (`accepted`) at once. */
function countSend(services: SendServices, mode: KeyMode, attempts: number): void {
  const { metrics } = services.options;
  metrics.notificationSent(mode, attempts);
  if (mode === 'test') metrics.attemptsEnded('accepted', null, attempts);
}

function buildNotification(request: SendRequest, defaultTtlSeconds: number): NotificationRecord {
  const { body, now } = request;
  const ttl = body.ttl ?? defaultTtlSeconds;
  return {
    id: newId('ntf', now),
    projectId: request.project.id,
    mode: request.mode,
    recipient: body.recipient,
    title: body.title,
    body: body.body ?? null,
    url: body.url ?? null,
    icon: body.icon ?? null,
    tag: body.tag ?? null,
    data: body.data ?? null,
    ttl,
    createdAt: now,
    expiresAt: now + ttl * 1000,
    // Recorded in the same insert, for the dashboard's page of this send (never in the API's answer).
    apiKeyId: request.apiKeyId,
    requestId: request.requestId,
    idempotencyKey: request.idempotencyKey,
  };
}
