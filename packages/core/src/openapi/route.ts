import type { RouteContext } from '../pipeline/context.js';
import { jsonReply } from '../pipeline/http/responses.js';
import { declareRoute, type RouteDeclaration, type RouteHandler } from '../pipeline/route.js';
import { noAuth } from '../shared/openapi/refs.js';
import { commonHeaders, problemResponses } from '../shared/openapi/responses.js';
import type { OpenApiOperation } from '../shared/openapi/types.js';
import { buildOpenApiDocument } from './document.js';

/**
 * GET /v1/openapi.json: the document of this instance (its limits, its public URL). Public:
 * no key and no rate limit, as it holds nothing that is not in the package. Rendered once per
 * public base (one, unless the instance is reached under several hosts without `publicUrl`).
 */
function createOpenApiHandler(options: { maxConnectTokenTtlSeconds: number }): RouteHandler {
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

const getOpenApiDocument: OpenApiOperation = {
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  description: 'The OpenAPI 3.1 document of this instance. Public: no key, not rate-limited.',
  tags: ['Reference'],
  security: noAuth,
  responses: {
    '200': {
      description: 'The OpenAPI document.',
      headers: commonHeaders(false),
      content: { 'application/json': { schema: { type: 'object' } } },
    },
    ...problemResponses([], false),
  },
};

/** The route of the document itself. */
export function openApiRoute(options: { maxConnectTokenTtlSeconds: number }): RouteDeclaration {
  return declareRoute({
    path: '/v1/openapi.json',
    cors: 'browser',
    methods: { GET: { handler: createOpenApiHandler(options), operation: getOpenApiDocument } },
  });
}
