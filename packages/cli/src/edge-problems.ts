import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { RequestError } from '@hono/node-server';
import { createConsoleLogger, type Logger, newId, TidingsError, toProblem } from '@tidings/core';
import type { Hono } from 'hono';

/** An answer of the standalone server outside Tidings' own routes, as problem details like theirs. */
export function problemResponse(error: TidingsError): Response {
  const requestId = newId('req');
  return new Response(JSON.stringify(toProblem(error, requestId)), {
    status: error.status,
    headers: { 'Content-Type': 'application/problem+json', 'Request-Id': requestId },
  });
}

/**
 * Unknown paths (outside `/v1` too) and failures of the server's own routes answer problem
 * details, as every route of Tidings does; a failure is logged with its request id.
 */
export function answerProblems(app: Hono): void {
  const logger = createConsoleLogger();
  app.notFound((c) => problemResponse(new TidingsError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}`)));
  app.onError((error) => {
    const answer = problemResponse(new TidingsError('INTERNAL_ERROR', 'Something went wrong'));
    logger.error('request failed', { request_id: answer.headers.get('Request-Id'), error: String(error) });
    return answer;
  });
}

/**
 * The answer when a request cannot even become a Web `Request` (a malformed Host, a URL that
 * does not parse): 400 with problem details, where `@hono/node-server` would send an empty 400.
 * Anything else that escapes the app is a 500, logged.
 */
export function requestErrorAnswer(logger: Logger): (error: unknown) => Response {
  return (error) => {
    if (error instanceof RequestError) {
      return problemResponse(new TidingsError('VALIDATION_FAILED', 'The request URL or Host is not valid'));
    }
    const answer = problemResponse(new TidingsError('INTERNAL_ERROR', 'Something went wrong'));
    logger.error('request failed', { request_id: answer.headers.get('Request-Id'), error: String(error) });
    return answer;
  };
}

/**
 * Requests that are not HTTP (broken framing, a bad header, headers over Node's limit) never
 * reach a route: Node reports them as `clientError`, with only the socket. They are answered
 * 400 with problem details, and the connection closed; a client that went away gets nothing.
 */
export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
      socket.destroy();
      return;
    }
    const detail =
      error.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are too large' : 'The request is not valid HTTP';
    const requestId = newId('req');
    const body = JSON.stringify(toProblem(new TidingsError('VALIDATION_FAILED', detail), requestId));
    socket.end(
      'HTTP/1.1 400 Bad Request\r\n' +
        'Content-Type: application/problem+json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
