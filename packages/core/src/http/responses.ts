import type { RouteContext } from '../context.js';
import { type Problem, type TidingsError, toProblem } from '../errors.js';

/** The headers an answer gathers besides its own: the request's (RateLimit…), the edge's (CORS) and its id. */
export type ReplyContext = Pick<RouteContext, 'responseHeaders' | 'edgeHeaders' | 'requestId'>;

/**
 * Every answer of a route, built once with all its headers as one plain object: its own,
 * `Cache-Control: no-store` unless it sets one, the request's and the edge's. Nothing is set on
 * an answer after it is made (hosts such as @hono/node-server read a plain object fastest).
 */
export function reply(
  ctx: ReplyContext,
  status: number,
  body: BodyInit | null,
  headers: Record<string, string> = {},
): Response {
  return new Response(body, { status, headers: replyHeaders(ctx, headers) });
}

/** Every header of an answer with its own `headers`: see {@link reply}. */
export function replyHeaders(ctx: ReplyContext, headers: Record<string, string> = {}): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    ...headers,
    ...ctx.responseHeaders,
    ...ctx.edgeHeaders,
    'Request-Id': ctx.requestId,
  };
}

/** A JSON answer: `json` is already serialized (a stored idempotent response is replayed as is). */
export function jsonReply(ctx: ReplyContext, status: number, json: string, headers: Record<string, string> = {}) {
  return reply(ctx, status, json, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
}

/** A problem-details answer for an error (RFC 9457), with the error's headers (Retry-After…). */
export function problemResponse(error: TidingsError, ctx: ReplyContext): Response {
  const problem: Problem = toProblem(error, ctx.requestId);
  const headers = { 'Content-Type': 'application/problem+json', ...error.headers };
  return reply(ctx, problem.status, JSON.stringify(problem), headers);
}

/** What an answer carries when nothing but its id is known of the request. */
export function bareReplyContext(requestId: string): ReplyContext {
  return { responseHeaders: NO_HEADERS, edgeHeaders: NO_HEADERS, requestId };
}

/** No headers: shared, never changed. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
