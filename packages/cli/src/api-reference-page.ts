import type {
  JsonSchema,
  OpenApiDocument,
  OpenApiHeader,
  OpenApiMediaType,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiReference,
} from '@tidings/core';

/**
 * The API reference at `/docs`, rendered on the server from the OpenAPI document: plain HTML and
 * one stylesheet, no script, nothing fetched from another host. A reader sees every endpoint,
 * its parameters, bodies, answers, headers and error codes, and every object's fields.
 */

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}

/** Escaped text with the document's `code spans` as <code>. */
function prose(text: string | undefined): string {
  return escapeHtml(text ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');
}

function refName(ref: string): string {
  return ref.split('/').pop()!;
}

function isReference(value: unknown): value is OpenApiReference {
  return typeof value === 'object' && value !== null && typeof (value as OpenApiReference).$ref === 'string';
}

const schemaLink = (name: string) => `<a href="#schema-${escapeHtml(name)}"><code>${escapeHtml(name)}</code></a>`;

/** A short description of a schema's type: `string`, `integer | null`, `array of Attempt`, a link. */
function typeOf(schema: JsonSchema | undefined): string {
  if (!schema) return 'any';
  if (isReference(schema)) return schemaLink(refName(schema.$ref));
  if ('const' in schema) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.enum))
    return schema.enum.map((value) => `<code>${escapeHtml(String(value))}</code>`).join(' | ');
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) return union.map(typeOf).join(' | ');
  if (Array.isArray(schema.allOf)) return (schema.allOf as JsonSchema[]).map(typeOf).join(' &amp; ');
  if (schema.type === 'array') return `array of ${typeOf(schema.items as JsonSchema | undefined)}`;
  if (schema.type === 'object' && !schema.properties) return 'object';
  return escapeHtml(String(schema.type ?? 'any'));
}

/** The rules of a schema a reader needs: lengths, bounds, pattern, format. */
function rulesOf(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) return union.flatMap(rulesOf);
  const rules: string[] = [];
  const pairs: [string, string][] = [
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
  ];
  for (const [key, label] of pairs) {
    const value = schema[key];
    // zod's integers carry the largest safe integer as a maximum: no rule a reader needs.
    if (typeof value === 'number' && Math.abs(value) < Number.MAX_SAFE_INTEGER) rules.push(`${label} ${value}`);
  }
  if (typeof schema.format === 'string') rules.push(`format <code>${escapeHtml(schema.format)}</code>`);
  else if (typeof schema.pattern === 'string') rules.push(`pattern <code>${escapeHtml(schema.pattern)}</code>`);
  return rules;
}

function descriptionOf(schema: JsonSchema | undefined): string | undefined {
  if (!schema) return undefined;
  if (typeof schema.description === 'string') return schema.description;
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return union?.map(descriptionOf).find((text) => text !== undefined);
}

/** The fields of an object schema as a table. */
function fieldsTable(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows = Object.entries(properties).map(([name, property]) => {
    const rules = rulesOf(property);
    const notes = [prose(descriptionOf(property)), rules.length > 0 ? rules.join(', ') : '']
      .filter(Boolean)
      .join('<br>');
    return `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${typeOf(property)}</td><td>${notes}</td></tr>`;
  });
  const closed = schema.additionalProperties === false ? '<p class="note">Other fields are refused.</p>' : '';
  return `<table><thead><tr><th>field</th><th>type</th><th>rules</th></tr></thead><tbody>${rows.join('')}</tbody></table>${closed}`;
}

function resolveParameter(document: OpenApiDocument, parameter: OpenApiParameter | OpenApiReference): OpenApiParameter {
  return isReference(parameter) ? document.components.parameters[refName(parameter.$ref)]! : parameter;
}

function resolveHeader(document: OpenApiDocument, header: OpenApiHeader | OpenApiReference): OpenApiHeader {
  return isReference(header) ? document.components.headers[refName(header.$ref)]! : header;
}

function parametersSection(document: OpenApiDocument, operation: OpenApiOperation): string {
  const parameters = (operation.parameters ?? []).map((parameter) => resolveParameter(document, parameter));
  if (parameters.length === 0) return '';
  const rows = parameters.map(
    (p) =>
      `<tr><td><code>${escapeHtml(p.name)}</code>${p.required ? ' <span class="req">required</span>' : ''}</td><td>${escapeHtml(p.in)}</td><td>${prose(p.description)}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><thead><tr><th>name</th><th>in</th><th>description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function mediaList(content: Record<string, OpenApiMediaType>): string {
  const items = Object.entries(content).map(([mediaType, media]) => {
    const description = descriptionOf(media.schema);
    return `<li><code>${escapeHtml(mediaType)}</code>: ${typeOf(media.schema)}${description ? ` — ${prose(description)}` : ''}</li>`;
  });
  return `<ul class="media">${items.join('')}</ul>`;
}

function requestBodySection(operation: OpenApiOperation): string {
  const body = operation.requestBody;
  if (!body) return '';
  return `<h4>Request body${body.required ? '' : ' (optional)'}</h4>${mediaList(body.content)}`;
}

function responsesSection(document: OpenApiDocument, operation: OpenApiOperation): string {
  const rows = Object.entries(operation.responses).map(([status, response]) => {
    const headers = Object.entries(response.headers ?? {}).map(([name, header]) => {
      const resolved = resolveHeader(document, header);
      return `<code title="${escapeHtml(resolved.description ?? '')}">${escapeHtml(name)}</code>${resolved.required ? '*' : ''}`;
    });
    const problems = response.content?.['application/problem+json'];
    const body = problems
      ? `${schemaLink('Problem')} with <code>code</code> ${Object.keys(problems.examples ?? {})
          .map((code) => `<code class="code">${escapeHtml(code)}</code>`)
          .join(' ')}`
      : response.content
        ? mediaList(response.content)
        : 'no body';
    return `<tr><td class="status s${escapeHtml(status.charAt(0))}xx">${escapeHtml(status)}</td><td>${prose(response.description)}</td><td>${body}</td><td>${headers.join(', ')}</td></tr>`;
  });
  return `<h4>Responses</h4><table class="responses"><thead><tr><th>status</th><th>when</th><th>body</th><th>headers (* always)</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function operationSection(
  document: OpenApiDocument,
  method: string,
  path: string,
  operation: OpenApiOperation,
  webhook = false,
): string {
  const auth = webhook
    ? 'Sent by Tidings to your endpoint, signed: verify <code>webhook-signature</code> with the endpoint’s secret'
    : operation.security && operation.security.length > 0
      ? 'API key: <code>Authorization: Bearer sk_live_…</code> or <code>sk_test_…</code>'
      : 'no API key';
  return `<section class="operation" id="${escapeHtml(operation.operationId)}">
<h3><span class="method ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code class="path">${escapeHtml(path)}</code></h3>
<p class="summary">${prose(operation.summary)}</p>
<p>${prose(operation.description)}</p>
<p class="auth">${webhook ? '' : 'Authentication: '}${auth}</p>
${parametersSection(document, operation)}${requestBodySection(operation)}${responsesSection(document, operation)}
</section>`;
}

/** An operation of the API, or a webhook (its `path` is the event type). */
type Entry = { method: string; path: string; operation: OpenApiOperation; webhook: boolean };

function operationsOf(document: OpenApiDocument): Entry[] {
  const paths = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({ method, path, operation: operation!, webhook: false })),
  );
  const webhooks = Object.entries(document.webhooks ?? {}).map(([type, { post }]) => ({
    method: 'post',
    path: type,
    operation: post,
    webhook: true,
  }));
  return [...paths, ...webhooks];
}

/** The stylesheet of the page: the only one, allowed by its hash. */
export const apiReferenceStyle = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6475; --line: #d9dee8; --bg: #fff; --panel: #f5f7fb; --accent: #3b5bdb; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ef; --muted: #a3acbd; --line: #343b49; --bg: #14171d; --panel: #1c2029; --accent: #8ea2ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
code { font: 0.92em ui-monospace, SFMono-Regular, Menlo, monospace; }
.layout { display: grid; grid-template-columns: 300px 1fr; min-height: 100vh; }
nav { position: sticky; top: 0; align-self: start; height: 100vh; overflow: auto; padding: 20px 16px; border-right: 1px solid var(--line); background: var(--panel); }
nav h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 18px 0 6px; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav li { margin: 3px 0; }
nav a { text-decoration: none; color: var(--fg); font-size: 13px; white-space: nowrap; }
main { padding: 24px 40px 80px; max-width: 1100px; }
h1 { margin: 0 0 4px; }
.lead { color: var(--muted); white-space: pre-line; }
.operation { border-top: 1px solid var(--line); padding-top: 12px; margin-top: 28px; }
h3 { font-size: 18px; margin: 8px 0; }
h4 { margin: 18px 0 6px; font-size: 14px; }
.method { display: inline-block; min-width: 52px; text-align: center; border-radius: 4px; padding: 1px 6px; font-size: 12px; color: #fff; vertical-align: 2px; }
.method.get { background: #2b8a3e; } .method.post { background: #1c64c4; }
.summary { font-weight: 600; margin: 4px 0; }
.auth, .note { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; margin: 4px 0; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
th { color: var(--muted); font-weight: 600; }
.req { color: #c92a2a; font-size: 11px; }
.status { font-weight: 700; font-family: ui-monospace, monospace; }
.s2xx { color: #2b8a3e; } .s4xx { color: #c2410c; } .s5xx { color: #c92a2a; }
.code { background: var(--panel); border: 1px solid var(--line); border-radius: 3px; padding: 0 3px; }
.media { margin: 0; padding-left: 18px; }
.schema { border-top: 1px solid var(--line); margin-top: 20px; }
`;

/** The whole page for `document`. */
export function apiReferenceHtml(document: OpenApiDocument, documentUrl: string): string {
  const entries = operationsOf(document);
  const nav = document.tags
    .map((tag) => {
      const links = entries
        .filter((entry) => entry.operation.tags.includes(tag.name))
        .map(
          (entry) =>
            `<li><a href="#${escapeHtml(entry.operation.operationId)}"><span class="method ${escapeHtml(entry.method)}">${escapeHtml(entry.method.toUpperCase())}</span> ${escapeHtml(entry.path)}</a></li>`,
        );
      return `<h2>${escapeHtml(tag.name)}</h2><ul>${links.join('')}</ul>`;
    })
    .join('');
  const schemaNav = Object.keys(document.components.schemas)
    .map((name) => `<li><a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a></li>`)
    .join('');
  const sections = document.tags
    .map((tag) => {
      const operations = entries
        .filter((entry) => entry.operation.tags.includes(tag.name))
        .map((entry) => operationSection(document, entry.method, entry.path, entry.operation, entry.webhook));
      return `<h2>${escapeHtml(tag.name)}</h2><p>${prose(tag.description)}</p>${operations.join('')}`;
    })
    .join('');
  const schemas = Object.entries(document.components.schemas)
    .map(
      ([name, schema]) =>
        `<section class="schema" id="schema-${escapeHtml(name)}"><h3><code>${escapeHtml(name)}</code></h3>${
          schema.description ? `<p>${prose(schema.description as string)}</p>` : ''
        }${schema.properties ? fieldsTable(schema) : `<p>${typeOf(schema)}</p>`}</section>`,
    )
    .join('');
  const server = document.servers?.[0]?.url;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)} reference</title>
<style>${apiReferenceStyle}</style>
</head>
<body>
<div class="layout">
<nav aria-label="Endpoints">${nav}<h2>Objects</h2><ul>${schemaNav}</ul></nav>
<main>
<h1>${escapeHtml(document.info.title)}</h1>
<p class="auth">Version ${escapeHtml(document.info.version)}${server ? ` · server <code>${escapeHtml(server)}</code>` : ''} · <a href="${escapeHtml(documentUrl)}">OpenAPI document</a></p>
<p class="lead">${prose(document.info.description)}</p>
${sections}
<h2>Objects</h2>
${schemas}
</main>
</div>
</body>
</html>`;
}
