import { authenticate } from '../pipeline/authenticate.js';
import type { RouteContext, Services } from '../pipeline/context.js';
import { readJsonBody } from '../pipeline/http/body.js';
import { jsonReply } from '../pipeline/http/responses.js';
import type { BrowserStore } from '../ports/store.js';
import { mintConnectToken } from './connect-tokens.js';
import { connectTokenBodySchema, parseBody } from './request-schemas.js';

/** The roles of the store these routes use. */
type RouteServices = Services<BrowserStore>;

/** POST /v1/connect-tokens: checked and limited exactly like the notification endpoints. */
export function createConnectTokenRoute(maxTtlSeconds: number) {
  const schema = connectTokenBodySchema(maxTtlSeconds);
  return async (ctx: RouteContext, services: RouteServices): Promise<Response> => {
    const { project } = await authenticate(ctx, services);
    const { options } = services;
    const raw = await readJsonBody(ctx.request, { maxBytes: options.maxBodyBytes, accepted: 'json', required: true });
    const body = parseBody(schema, raw);
    const token = await mintConnectToken(options, {
      projectId: project.id,
      recipient: body.recipient,
      ttlSeconds: body.ttl_seconds ?? null,
      now: ctx.now,
      publicBase: ctx.publicBase,
    });
    return jsonReply(ctx, 201, JSON.stringify(token));
  };
}
