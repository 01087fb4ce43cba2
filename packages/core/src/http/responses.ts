import type { RouteContext } from '../context.js';
import { type Problem, type TidingsError, toProblem } from '../errors.js';

/** Answers that already carry every header: the edge sets nothing more on them. */
const finished = new WeakSet<Response>();

/**
 * A JSON answer built with all its headers at once, as one plain object: its own, the request's
 * (`responseHeaders`, e.g. RateLimit), `Cache-Control: no-store` unless it has one, and the
 * edge's (CORS, Request-Id). The edge used to add those one by one to `response.headers`, which
 * made a Headers object per answer (and hosts such as @hono/node-server then converted it back
 * to a plain object); the hot routes answer this way instead.
 */
export function finishedJsonResponse(
  ctx: Pick<RouteContext, 'responseHeaders' | 'edgeHeaders'>,
  status: number,
  json: string,
  headers: Record<string, string> = {},
): Response {
  const response = new Response(json, {
    status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      ...headers,
      ...ctx.responseHeaders,
      ...ctx.edgeHeaders,
    },
  });
  finished.add(response);
  return response;
}

/** True for an answer made by {@link finishedJsonResponse}. */
export function isFinishedResponse(response: Response): boolean {
  return finished.has(response);
}

/** A JSON answer. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

/** A problem-details answer for an error (RFC 9457). */
export function problemResponse(error: TidingsError, requestId: string): Response {
  const problem: Problem = toProblem(error, requestId);
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { 'Content-Type': 'application/problem+json', ...error.headers },
  });
}
