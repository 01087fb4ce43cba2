import { buildOpenApiDocument } from '@tidings/core';
import { describe, expect, it } from 'vitest';
import { apiReferenceHtml, escapeHtml } from './api-reference-page.js';

describe('the API reference page', () => {
  const document = buildOpenApiDocument({ serverUrl: 'https://api.example.com' });
  const html = apiReferenceHtml(document, '/v1/openapi.json');

  it('has a section for every operation, and one for every object', () => {
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations)) expect(html).toContain(`id="${operation!.operationId}"`);
    }
    for (const name of Object.keys(document.components.schemas)) expect(html).toContain(`id="schema-${name}"`);
  });

  it('has a section for every webhook, with its signed headers', () => {
    expect(Object.keys(document.webhooks)).toContain('notification.attempt.updated');
    for (const [type, { post }] of Object.entries(document.webhooks)) {
      const start = html.indexOf(`<section class="operation" id="${post.operationId}">`);
      expect(start, type).toBeGreaterThan(-1);
      const section = html.slice(start, html.indexOf('</section>', start));
      expect(section).toContain(`<code class="path">${type}</code>`);
      expect(section).toContain('<code>webhook-signature</code> <span class="req">required</span>');
    }
    expect(html).toContain(`<a href="#${document.webhooks['browser.connected']!.post.operationId}">`);
  });

  it('lists the error codes of each status and the fields of each object with their rules', () => {
    expect(html).toContain('<code class="code">IDEMPOTENCY_MISMATCH</code>');
    expect(html).toContain('<code>title</code> <span class="req">required</span>');
    expect(html).toContain('max length 200');
    expect(html).toContain('Other fields are refused.');
  });

  it('has no script and links the document', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<a href="/v1/openapi.json">OpenAPI document</a>');
  });

  it('escapes what the document says', () => {
    const hostile = structuredClone(document);
    hostile.info.title = '<img src=x onerror=alert(1)>';
    hostile.paths['/v1/notifications']!.post!.description = 'see `<b>` & "quotes"';
    const page = apiReferenceHtml(hostile, '/v1/openapi.json');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('see <code>&lt;b&gt;</code> &amp; &quot;quotes&quot;');
    expect(escapeHtml(`'`)).toBe('&#39;');
  });
});
