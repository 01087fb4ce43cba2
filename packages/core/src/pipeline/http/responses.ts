import type { RouteContext } from '../context.js';
import { type Problem, type TidingsError, toProblem } from '../errors.js';
import { LazyTextResponse } from './lazy-text-response.js';

/** The headers an answer gathers besides its own: the request's (RateLimit…), the edge's (CORS) and its id. */
export type ReplyContext = Pick<RouteContext, 'responseHeaders' | 'edgeHeaders' | 'requestId'> &
  Partial<Pick<RouteContext, 'writesTextAnswers'>>;

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
  const all = replyHeaders(ctx, headers);
  if (typeof body !== 'string') return new Response(body, { status, headers: all });
  const response = ctx.writesTextAnswers
    ? (new LazyTextResponse(status, all, body) as unknown as Response)
    : new Response(body, { status, headers: all });
  textAnswers.set(response, { status, headers: all, text: body });
  return response;
}

/** An answer of the core as it was made: its status, its headers as one object, its text. */
export interface TextAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  text: string;
}

/** What each answer made from a string was made of, for a host that can write it as it is. */
const textAnswers = new WeakMap<Response, TextAnswer>();

/**
 * The status, headers and text an answer of the core was made from, or undefined for any other
 * answer (a stream, no body, a Response made elsewhere). A Node host writes them with one
 * `writeHead` and one `end()` instead of reading the Web headers and body back
 * (`@tidings/core/node`); the Response itself stays whole and readable.
 */
export function textAnswerOf(response: Response): TextAnswer | undefined {
  return textAnswers.get(response);
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
