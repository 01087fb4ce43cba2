import { type NotificationBody, notificationBodySchema, parseBody } from '../api/request-schemas.js';
import { notificationJson, serializeNotification } from '../api/serialize.js';
import type { RouteContext, Services } from '../context.js';
import { TidingsError } from '../errors.js';
import { readJsonBody } from '../http/body.js';
import { jsonReply } from '../http/responses.js';
import { parseIdempotencyKey, requestFingerprint } from '../idempotency.js';
import type { HubMessage } from '../ports/hub.js';
import type {
  IdempotencyInput,
  IdempotencyStore,
  JobsOf,
  NotificationStore,
  PushStore,
  StoredResponse,
} from '../ports/store.js';
import { pushJobsForSend } from '../push/send-jobs.js';
import type { ApiKeyRecord, KeyMode, NotificationRecord, NotificationWithAttempts, ProjectRecord } from '../records.js';
import { toDelivery } from '../stream/delivery.js';
import { isId, newId } from '../util/ids.js';
import { authenticate } from './authenticate.js';

/** The roles of the store these routes use. */
type RouteServices = Services<IdempotencyStore & NotificationStore & PushStore>;

/**
 * POST /v1/notifications: validate, check the idempotency key, record, hand live attempts to the
 * hub. The key is recorded with the result in the send's own transaction (docs/api.md,
 * "Idempotency"); while a send with the key runs in this process, another gets 409.
 */
export async function sendNotification(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { key, project } = await authenticate(ctx, services);
  const { options } = services;
  const raw = await readJsonBody(ctx.request, { maxBytes: options.maxBodyBytes, accepted: 'json', required: true });
  const body = parseBody(notificationBodySchema, raw);
  const idempotencyKey = parseIdempotencyKey(ctx.request.headers.get('idempotency-key'));
  if (idempotencyKey === null) return recordSend(ctx, services, key, project, body, null);

  const idempotency = {
    key: idempotencyKey,
    fingerprint: requestFingerprint(raw, key.mode),
    expiresAt: ctx.now + options.idempotencyRetentionMs,
  };
  const stored = await options.store.findIdempotentResponse({
    projectId: project.id,
    key: idempotencyKey,
    fingerprint: idempotency.fingerprint,
    now: ctx.now,
  });
  if (stored.kind === 'replay') return replay(ctx, stored);
  if (stored.kind === 'mismatch') throw idempotencyMismatch();

  const inFlightKey = `${project.id}\n${idempotencyKey}`;
  if (services.sendsInFlight.has(inFlightKey)) {
    throw new TidingsError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running', {
      headers: { 'Retry-After': '1' },
    });
  }
  services.sendsInFlight.add(inFlightKey);
  try {
    return await recordSend(ctx, services, key, project, body, idempotency);
  } finally {
    services.sendsInFlight.delete(inFlightKey);
  }
}

async function recordSend(
  ctx: RouteContext,
  services: RouteServices,
  key: ApiKeyRecord,
  project: ProjectRecord,
  body: NotificationBody,
  idempotency: IdempotencyInput | null,
): Promise<Response> {
  const { options } = services;
  const notification = buildNotification(body, key, project, ctx.now, options.defaultTtlSeconds, {
    requestId: ctx.requestId,
    idempotencyKey: idempotency?.key ?? null,
  });
  const pushJobs = await pushJobsOf(services, notification);
  const result = await options.store.createNotification({
    notification,
    newAttemptId: () => newId('att', ctx.now),
    idempotency,
    // Not memoized: what a send created is never handed out again as the same object.
    render: (created) => ({ status: 201, body: serializeNotification(created) }),
    ...(pushJobs === null ? {} : { jobs: pushJobs }),
  });
  switch (result.kind) {
    case 'no-connected-browser':
      throw new TidingsError('NO_CONNECTED_BROWSER', `Recipient ${body.recipient} has no connected browser`);
    case 'mismatch':
      throw idempotencyMismatch();
    case 'replay':
      // Another process recorded a send with this key first; the store waited for it.
      return replay(ctx, result.response);
    case 'created':
      break;
  }
  countSend(services, notification.mode, result.created.attempts.length);
  if (notification.mode === 'live') {
    handOn(
      ctx,
      services,
      result.created.attempts.map((attempt) => ({ type: 'deliver', delivery: toDelivery(notification, attempt) })),
    );
  }
  return jsonReply(ctx, result.response.status, result.response.body);
}

/**
 * The push jobs of a live send whose recipient has browsers with a push subscription (read just
 * before the send; a browser that subscribes meanwhile has a tab open, which the stream reaches).
 */
async function pushJobsOf(
  services: RouteServices,
  notification: NotificationRecord,
): Promise<JobsOf<NotificationWithAttempts> | null> {
  const { push, store } = services.options;
  if (push === null || notification.mode !== 'live') return null;
  const subscribed = await store.listPushSubscribedBrowsers({
    projectId: notification.projectId,
    recipient: notification.recipient,
  });
  if (subscribed.length === 0) return null;
  const browserIds = new Set(subscribed);
  return (created) => pushJobsForSend(created, browserIds, push.graceMs);
}

/**
 * Publishes a recorded send's attempts without waiting: the 201 depends on the commit alone. Both
 * hubs of Tidings write to this process's streams before `publish` returns and carry the
 * attempts to other instances on their own time; what a hub fails to carry reaches the streams
 * through the catch-up, on resume or by polling, so a failure is logged and the send stands.
 */
function handOn(ctx: RouteContext, services: RouteServices, messages: HubMessage[]): void {
  const failed = (error: unknown) =>
    services.options.logger.error('hub publish failed after a send was recorded', {
      request_id: ctx.requestId,
      error: String(error),
    });
  try {
    services.hub.publish(messages).catch(failed);
  } catch (error) {
    failed(error);
  }
}

function replay(ctx: RouteContext, stored: StoredResponse): Response {
  return jsonReply(ctx, stored.status, stored.body, { 'Idempotent-Replayed': 'true' });
}

function idempotencyMismatch(): TidingsError {
  return new TidingsError(
    'IDEMPOTENCY_MISMATCH',
    'This Idempotency-Key was used with another body or another mode; use a new key',
  );
}

/** A recorded send, for the metrics; a test-mode attempt is final (`accepted`) at once. */
function countSend(services: RouteServices, mode: KeyMode, attempts: number): void {
  const { metrics } = services.options;
  metrics.notificationSent(mode, attempts);
  if (mode === 'test') metrics.attemptsEnded('accepted', null, attempts);
}

function buildNotification(
  body: NotificationBody,
  key: ApiKeyRecord,
  project: ProjectRecord,
  now: number,
  defaultTtlSeconds: number,
  origin: { requestId: string; idempotencyKey: string | null },
): NotificationRecord {
  const ttl = body.ttl ?? defaultTtlSeconds;
  return {
    id: newId('ntf', now),
    projectId: project.id,
    mode: key.mode,
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
    apiKeyId: key.id,
    requestId: origin.requestId,
    idempotencyKey: origin.idempotencyKey,
  };
}

/** GET /v1/notifications/{id}: another project's id is as unknown as a made-up one (404). */
export async function readNotification(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { project } = await authenticate(ctx, services);
  const id = ctx.params.id ?? '';
  const found = isId('ntf', id) ? await services.options.store.getNotification({ projectId: project.id, id }) : null;
  if (!found) throw new TidingsError('NOT_FOUND', `No notification with id ${id}`);
  return jsonReply(ctx, 200, notificationJson(found));
}
