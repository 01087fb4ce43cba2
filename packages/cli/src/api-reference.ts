import { createHash } from 'node:crypto';
import type { OpenApiDocument, Tidings } from '@tidings/core';
import type { Context, Hono } from 'hono';
import { apiReferenceHtml, apiReferenceStyle } from './api-reference-page.js';

// No script at all and one stylesheet allowed by its hash: the page loads nothing from anywhere.
const securityHeaders = {
  'Content-Security-Policy': [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(apiReferenceStyle).digest('base64')}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
};

/**
 * Registers `GET /docs`: the API reference, rendered from the document the instance serves at
 * `/v1/openapi.json` (so it shows this instance's limits and URL), once per origin it is asked
 * under.
 */
export function registerApiReference(app: Hono, tidings: Tidings): void {
  let renderedFor: string | null = null;
  let rendered = '';
  const page = async (c: Context) => {
    const origin = new URL(c.req.url).origin;
    if (renderedFor !== origin) {
      const documentUrl = `${origin}/v1/openapi.json`;
      const answer = await tidings.fetch(new Request(documentUrl));
      if (!answer.ok) return c.text('The OpenAPI document could not be read', 500);
      rendered = apiReferenceHtml((await answer.json()) as OpenApiDocument, '/v1/openapi.json');
      renderedFor = origin;
    }
    return c.html(rendered, 200, securityHeaders);
  };
  app.get('/docs', page);
  app.get('/docs/', page);
}
