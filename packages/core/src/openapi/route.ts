import type { RouteContext, RouteHandler } from '../pipeline/context.js';
import { jsonReply } from '../pipeline/http/responses.js';
import { buildOpenApiDocument } from './document.js';

/**
 * GET /v1/openapi.json: the document of this instance (its limits, its public URL). Public:
 * no key and no rate limit, as it holds nothing that is not in the package. Rendered once per
 * public base (one, unless the instance is reached under several hosts without `publicUrl`).
 */
export function createOpenApiRoute(options: { maxConnectTokenTtlSeconds: number }): RouteHandler {
  let renderedFor: string | null = null;
  let rendered = '';
  return async (ctx: RouteContext) => {
    const serverUrl = ctx.publicBase;
    if (renderedFor !== serverUrl) {
      rendered = JSON.stringify(buildOpenApiDocument({ ...options, serverUrl }));
      renderedFor = serverUrl;
    }
    return jsonReply(ctx, 200, rendered, { 'Cache-Control': 'public, max-age=300' });
  };
}
