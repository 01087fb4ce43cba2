import { parseIdempotencyKey } from '../delivery/idempotency.js';
import type { RequestConcerns } from '../pipeline/context.js';
import type { KeyMode } from '../ports/records.js';
import { isId } from '../shared/ids.js';
import { logBody, redactQuery, redactSecrets } from './redact.js';
import type { RequestLogEntry } from './store.js';

/**
 * A request as the edge saw it, kept until the writer's next flush: the texts are as they were,
 * and become an entry (secrets removed, bodies cut, ids found) only then, off the request's path.
 */
export interface RawRequestLogEntry {
  requestId: string;
  projectId: string;
  keyPrefix: string;
  mode: KeyMode;
  method: string;
  /** The path without the mount path and without the query. */
  pathname: string;
  /** The query with its `?`, or ''. */
  query: string;
  /** The route's path parameters. */
  params: Readonly<Record<string, string>>;
  status: number;
  idempotencyKey: string | null;
  createdAt: number;
  durationMs: number;
  requestText: string | null;
  responseText: string | null;
  /** What the request concerns as its route told it; null: found in the bodies. */
  concerns: RequestConcerns | null;
}

/** The longest Idempotency-Key there is (docs/api.md#idempotency): one sent longer is kept cut. */
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The JSON of a body, or undefined when it is none. */
function parsed(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/** The key as the idempotency step reads it (a quoted one unquoted), or as sent when it is not valid. */
function idempotencyKeyOf(header: string | null): string | null {
  if (header === null) return null;
  try {
    return parseIdempotencyKey(header);
  } catch {
    return header.slice(0, MAX_IDEMPOTENCY_KEY_LENGTH);
  }
}

/**
 * The notifications a request concerns: the one of its path (a read), the one its answer is (a
 * send, a replay), those its body names (a mark of inbox items).
 */
function notificationIdsOf(raw: RawRequestLogEntry, request: unknown, response: unknown): string[] {
  const ids = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string' && isId('ntf', value)) ids.add(value);
  };
  add(raw.params.id);
  if (field(response, 'object') === 'notification') add(field(response, 'id'));
  const named = field(request, 'ids');
  if (Array.isArray(named)) for (const id of named) add(id);
  return [...ids];
}

/** A recipient as the log keeps it: a string of at least one character, cut at 128; else null. */
function recipientText(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, 128) : null;
}

/**
 * The recipient of its path (inbox reads), else of its body (a send, a connect token), else of
 * its answer (a read of a notification), if it is a string.
 */
function recipientOf(raw: RawRequestLogEntry, request: unknown, response: unknown): string | null {
  return recipientText(raw.params.recipient ?? field(request, 'recipient') ?? field(response, 'recipient'));
}

/** `text` without the secrets the log recognises, or null. */
function redactedOrNull(text: string | null): string | null {
  return text === null ? null : redactSecrets(text);
}

/** The entry the log keeps of a request: its secrets removed, its bodies cut, what it concerns found. */
export function finishRequestLogEntry(raw: RawRequestLogEntry): RequestLogEntry {
  const { concerns } = raw;
  // Bodies are parsed only for what the route did not tell: parsing them is most of the work.
  const request = concerns === null ? parsed(raw.requestText) : undefined;
  const response = concerns === null || raw.status >= 400 ? parsed(raw.responseText) : undefined;
  const code = raw.status >= 400 ? field(response, 'code') : undefined;
  return {
    requestId: raw.requestId,
    projectId: raw.projectId,
    method: raw.method,
    // A key or token pasted into a path (`/v1/notifications/sk_live_…`) is removed there too.
    path: `${redactSecrets(raw.pathname)}${redactQuery(raw.query)}`,
    status: raw.status,
    code: typeof code === 'string' ? code : null,
    keyPrefix: raw.keyPrefix,
    mode: raw.mode,
    idempotencyKey: redactedOrNull(idempotencyKeyOf(raw.idempotencyKey)),
    notificationIds: concerns === null ? notificationIdsOf(raw, request, response) : [...concerns.notificationIds],
    recipient: redactedOrNull(
      concerns === null ? recipientOf(raw, request, response) : recipientText(concerns.recipient),
    ),
    createdAt: raw.createdAt,
    durationMs: raw.durationMs,
    requestBody: logBody(raw.requestText),
    responseBody: logBody(raw.responseText),
  };
}
