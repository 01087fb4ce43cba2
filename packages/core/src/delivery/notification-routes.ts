import { authenticate } from '../pipeline/authenticate.js';
import type { RouteContext } from '../pipeline/context.js';
import { TidingsError } from '../pipeline/errors.js';
import { readJsonBody } from '../pipeline/http/body.js';
import { jsonReply } from '../pipeline/http/responses.js';
import { isId } from '../shared/ids.js';
import { parseIdempotencyKey } from './idempotency.js';
import { recordSend, type SendServices } from './record-send.js';
import { notificationBodySchema, parseBody } from './request-schemas.js';
import { notificationJson } from './serialize.js';

/** The roles of the store these routes use. */
type RouteServices = SendServices;

/**
 * POST /v1/notifications: validate, check the idempotency key, record, hand live attempts to the
 * hub. The key is recorded with the result in the send's own transaction (docs/api.md,
 * "Idempotency"); while a send with the key runs in this process, another gets 409. The steps
 * after authentication are those of an in-process send (record-send.ts).
 */
export async function sendNotification(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { key, project } = await authenticate(ctx, services);
  const { options } = services;
  const raw = await readJsonBody(ctx.request, { maxBytes: options.maxBodyBytes, accepted: 'json', required: true });
  const body = parseBody(notificationBodySchema, raw);
  const idempotencyKey = parseIdempotencyKey(ctx.request.headers.get('idempotency-key'));
  const outcome = await recordSend(services, {
    project,
    mode: key.mode,
    apiKeyId: key.id,
    requestId: ctx.requestId,
    body,
    raw,
    idempotencyKey,
    now: ctx.now,
  });
  const { response } = outcome;
  if (outcome.kind === 'created') {
    ctx.concerns = { notificationIds: [outcome.created.notification.id], recipient: body.recipient };
  }
  if (outcome.kind === 'replay') {
    return jsonReply(ctx, response.status, response.body, { 'Idempotent-Replayed': 'true' });
  }
  return jsonReply(ctx, response.status, response.body);
}

/** GET /v1/notifications/{id}: another project's id is as unknown as a made-up one (404). */
export async function readNotification(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { project } = await authenticate(ctx, services);
  const id = ctx.params.id ?? '';
  const found = isId('ntf', id) ? await services.options.store.getNotification({ projectId: project.id, id }) : null;
  if (!found) throw new TidingsError('NOT_FOUND', `No notification with id ${id}`);
  ctx.concerns = { notificationIds: [id], recipient: found.notification.recipient };
  return jsonReply(ctx, 200, notificationJson(found));
}
