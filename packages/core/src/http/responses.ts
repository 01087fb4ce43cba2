import { type Problem, type TidingsError, toProblem } from '../errors.js';

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
