import { buildOpenApiDocument, type OpenApiDocument } from '@tidings/core';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Checks answers against the OpenAPI document with Ajv (JSON Schema 2020-12, the document's
 * dialect): the status is documented for the operation, the documented headers are present when
 * required and valid when present, the media type is one documented, and a JSON body validates
 * against its schema. The end-to-end tests pass every answer they get through it.
 *
 * The document leaves answer objects open so that fields can be added without breaking clients;
 * the checker closes them (`additionalProperties: false`), so that a field the document does
 * not name fails too.
 */

// ajv-formats is CommonJS: its default export arrives as the module object under Node's ESM.
const addFormats = ((addFormatsModule as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

const DOCUMENT_ID = 'https://tidings.invalid/openapi.json';

type Json = { [key: string]: unknown };

/** What was answered to one request, as the checker needs it. */
export interface ObservedAnswer {
  method: string;
  /** The full URL or the path of the request. */
  url: string;
  status: number;
  headers: Headers;
  /** The body as text; ignored for an event stream. */
  body: string;
}

/** The checker of one document. */
export interface ConformanceChecker {
  /** Every way `answer` departs from the document; empty when it conforms. */
  check(answer: ObservedAnswer): string[];
  /** Every way the data of an event-stream event departs from the document's schema of it. */
  checkEvent(event: string, data: string): string[];
  /** Every way a webhook request (its headers and body) departs from the document's `webhooks`. */
  checkWebhook(headers: Record<string, string | string[] | undefined>, body: string): string[];
}

/** Closes every object schema that names its properties and says nothing of others. */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = closeObjects(value);
  if (out.type === 'object' && typeof out.properties === 'object' && !('additionalProperties' in out)) {
    out.additionalProperties = false;
  }
  return out;
}

/** A JSON pointer to `tokens` as a URI fragment. */
function pointer(tokens: string[]): string {
  return `#/${tokens.map((token) => encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;
}

function mediaTypeOf(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Creates a checker for `document`, by default the one `buildOpenApiDocument()` builds. */
export function createConformanceChecker(
  document: OpenApiDocument = buildOpenApiDocument(),
  options: { apiPrefix?: string } = {},
): ConformanceChecker {
  const apiPrefix = options.apiPrefix ?? '/v1/';
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const closed = closeObjects(document) as OpenApiDocument;
  ajv.addSchema(closed as unknown as Json, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();

  function validator(tokens: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}${pointer(tokens)}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  }

  function errorsOf(validate: ValidateFunction, value: unknown, where: string): string[] {
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${where}${error.instancePath} ${error.message ?? 'is invalid'}`);
  }

  const paths = Object.keys(closed.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const problemValidator = () => validator(['components', 'schemas', 'Problem']);

  function resolveHeader(header: unknown): { required?: boolean; schemaTokens: string[] } {
    const ref = (header as { $ref?: string }).$ref;
    if (ref) {
      const name = ref.split('/').pop()!;
      return { ...closed.components.headers[name], schemaTokens: ['components', 'headers', name, 'schema'] };
    }
    return { ...(header as { required?: boolean }), schemaTokens: [] };
  }

  function check(answer: ObservedAnswer): string[] {
    const method = answer.method.toUpperCase();
    const fullPath = new URL(answer.url, 'http://relative.invalid').pathname;
    // The API may be mounted under a base path (`/notify/v1/…`); paths outside it are the host's.
    const at = fullPath.indexOf(apiPrefix);
    // Preflights are answered by the CORS layer.
    if (method === 'OPTIONS' || at === -1) return [];
    const path = fullPath.slice(at);
    const what = `${method} ${path} → ${answer.status}`;
    const issues: string[] = [];
    if (!answer.headers.get('request-id')) issues.push(`${what}: no Request-Id header`);

    const found = paths.find(({ pattern }) => pattern.test(path));
    const operation = found && closed.paths[found.template]?.[method.toLowerCase() as 'get' | 'post'];
    if (!found || !operation) {
      // An unknown path is 404, a known path with another method 405: problem details either way.
      const expected = found ? 405 : 404;
      if (answer.status !== expected) return [...issues, `${what}: not in the document, yet not ${expected}`];
      return [...issues, ...checkProblem(answer, what)];
    }

    const response = operation.responses[String(answer.status)];
    if (!response) return [...issues, `${what}: status not documented for ${operation.operationId}`];
    const responseTokens = ['paths', found.template, method.toLowerCase(), 'responses', String(answer.status)];

    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const { required, schemaTokens } = resolveHeader(header);
      const value = answer.headers.get(name);
      if (value === null) {
        if (required) issues.push(`${what}: required header ${name} is missing`);
        continue;
      }
      const tokens = schemaTokens.length > 0 ? schemaTokens : [...responseTokens, 'headers', name, 'schema'];
      issues.push(...errorsOf(validator(tokens), value, `${what}: header ${name}`));
    }

    const content = response.content ?? {};
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      if (answer.body !== '') issues.push(`${what}: a body where the document has none`);
      return issues;
    }
    const mediaType = mediaTypeOf(answer.headers);
    if (!mediaTypes.includes(mediaType)) {
      return [...issues, `${what}: media type ${mediaType || '(none)'} is not one of ${mediaTypes.join(', ')}`];
    }
    if (mediaType === 'text/event-stream') return issues;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [...issues, `${what}: the body is not JSON`];
    }
    const schemaTokens = [...responseTokens, 'content', mediaType, 'schema'];
    return [...issues, ...errorsOf(validator(schemaTokens), body, `${what}: body`)];
  }

  function checkProblem(answer: ObservedAnswer, what: string): string[] {
    if (mediaTypeOf(answer.headers) !== 'application/problem+json') return [`${what}: not problem details`];
    try {
      return errorsOf(problemValidator(), JSON.parse(answer.body), `${what}: body`);
    } catch {
      return [`${what}: the body is not JSON`];
    }
  }

  const eventSchemas: Record<string, string> = { ready: 'ReadyEvent', notification: 'Delivery', inbox: 'InboxUpdate' };

  function checkEvent(event: string, data: string): string[] {
    const schema = eventSchemas[event];
    if (!schema) return [`event ${event}: not a documented event`];
    try {
      return errorsOf(validator(['components', 'schemas', schema]), JSON.parse(data), `event ${event}: data`);
    } catch {
      return [`event ${event}: the data is not JSON`];
    }
  }

  function checkWebhook(headers: Record<string, string | string[] | undefined>, body: string): string[] {
    let payload: { type?: unknown };
    try {
      payload = JSON.parse(body);
    } catch {
      return ['webhook: the body is not JSON'];
    }
    const type = String(payload.type);
    const operation = closed.webhooks[type]?.post;
    if (!operation) return [`webhook ${type}: not a documented webhook`];
    const what = `webhook ${type}`;
    const issues: string[] = [];
    for (const parameter of operation.parameters ?? []) {
      const name = (parameter as { $ref: string }).$ref.split('/').pop()!;
      const { name: headerName, required } = closed.components.parameters[name]!;
      const value = headers[headerName.toLowerCase()];
      if (typeof value !== 'string') {
        if (required) issues.push(`${what}: required header ${headerName} is missing`);
        continue;
      }
      issues.push(
        ...errorsOf(validator(['components', 'parameters', name, 'schema']), value, `${what}: header ${headerName}`),
      );
    }
    const schemaTokens = ['webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'];
    return [...issues, ...errorsOf(validator(schemaTokens), payload, `${what}: body`)];
  }

  return { check, checkEvent, checkWebhook };
}

let shared: ConformanceChecker | undefined;

/** The checker of the default document, built once per test file. */
export function conformanceChecker(): ConformanceChecker {
  shared ??= createConformanceChecker();
  return shared;
}

/**
 * Fails (throws) when the answer to `method url` does not conform to the document. Reads a
 * clone of the body (not of an event stream), so the caller can still read the answer.
 */
export async function expectConforms(method: string, url: string, response: Response): Promise<void> {
  const isStream = mediaTypeOf(response.headers) === 'text/event-stream';
  const body = isStream ? '' : await response.clone().text();
  const issues = conformanceChecker().check({ method, url, status: response.status, headers: response.headers, body });
  if (issues.length > 0) {
    throw new Error(`The answer does not conform to the OpenAPI document:\n- ${issues.join('\n- ')}\n${body}`);
  }
}

/** `fetch`, failing when the answer does not conform to the document. */
export async function conformingFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(input, init);
  await expectConforms(init.method ?? 'GET', String(input), response);
  return response;
}
