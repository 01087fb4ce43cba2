import { apiRoutes } from '../features.js';
import { openApiPaths } from '../pipeline/route.js';
import type { OpenApiDocument } from '../shared/openapi/types.js';
import { documentWebhooks } from '../webhooks/openapi.js';
import { componentHeaders, componentParameters, componentSchemas } from './components.js';

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  /** The URL the API is served from, as the document's only server. @default none: paths are relative */
  serverUrl?: string;
  /** The longest connect token lifetime a request may ask for, in seconds. @default 86400 */
  maxConnectTokenTtlSeconds?: number;
}

const DESCRIPTION = [
  'Tidings delivers notifications to the connected browsers of your users.',
  'Your server sends with an API key (`Authorization: Bearer sk_live_…` or `sk_test_…`) and mints connect tokens;',
  'the page connects with a token and posts receipts with its browser secret.',
  '',
  'Every error is RFC 9457 problem details (`application/problem+json`) with a stable `code`; every answer carries',
  '`Request-Id`. A 429 carries `Retry-After`. Times are RFC 3339 UTC strings; every object carries `object`.',
].join('\n');

/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the zod schemas that validate the
 * requests and type the answers: nothing in it is kept by hand beside them.
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const maxConnectTokenTtlSeconds = options.maxConnectTokenTtlSeconds ?? 86_400;
  return {
    openapi: '3.1.1',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Tidings API',
      version: '1',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers:
      options.serverUrl === undefined
        ? [
            {
              url: '{origin}',
              description: 'Where Tidings is served, with the path it is mounted under.',
              variables: {
                origin: {
                  default: 'http://127.0.0.1:8787',
                  description: 'The standalone server listens here by default.',
                },
              },
            },
          ]
        : [{ url: options.serverUrl.replace(/\/+$/, '') }],
    tags: [
      { name: 'Notifications', description: 'Send notifications and read their delivery status (API key).' },
      { name: 'Connect tokens', description: 'Let a signed-in user’s page connect (API key).' },
      {
        name: 'Browsers',
        description:
          'What a page calls, with a connect token or its browser secret. CORS for any origin, without credentials.',
      },
      {
        name: 'Inbox',
        description:
          'Each recipient’s inbox: read, seen and archived per recipient, with counts (a browser’s credentials, or an API key).',
      },
      { name: 'Reference', description: 'This document.' },
      {
        name: 'Webhooks',
        description:
          'What Tidings sends to the webhook endpoints a project registers (admin API, `tidings webhook create`): ' +
          'signed Standard Webhooks messages of delivery events.',
      },
    ],
    paths: openApiPaths(apiRoutes({ maxConnectTokenTtlSeconds })),
    webhooks: documentWebhooks(),
    components: {
      schemas: componentSchemas({ maxConnectTokenTtlSeconds }),
      headers: componentHeaders(),
      parameters: componentParameters(),
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'sk_live_… or sk_test_… followed by 32 letters and digits',
          description: 'An API key of the project. Live keys are refused from browsers (a request with `Origin`).',
        },
      },
    },
  };
}
