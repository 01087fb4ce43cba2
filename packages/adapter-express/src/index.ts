import type { ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Tidings } from '@tidings/core';
import { nodeEventStream } from '@tidings/core/node';
import type { Request as ExpressRequest, NextFunction, RequestHandler } from 'express';
import { toWebRequest } from './node-bridge.js';

export { type BridgedIncomingMessage, discardUnreadBody, toWebRequest, writeWebResponse } from './node-bridge.js';

/** Options of {@link tidingsExpress}. */
export interface TidingsExpressOptions {
  /**
   * The client's socket address, which the core uses for per-IP limits (and to which it applies
   * `trustProxy`). @default `req.socket.remoteAddress`
   */
  getClientAddress?: (req: ExpressRequest) => string | undefined;
  /**
   * Whether `@hono/node-server` may replace the process's global `Request` and `Response` with
   * its lightweight subclasses, which lets it write the core's answers without building a Web
   * body stream. Off by default: mounting a middleware must not change what the host
   * application's own code sees (the package declares no side effects). Turning it on is a
   * choice for the whole process; the README's performance section gives what it saves.
   * @default false
   */
  overrideGlobalObjects?: boolean;
}

/**
 * The `next` of the request being handed to the listener. The listener calls back synchronously,
 * before its first await, so the callback takes it from here: nothing is stored on the request,
 * which an open event stream would keep alive with Express's routing state for hours.
 */
let handing: NextFunction | null = null;

/** A failure of the core (or of `getClientAddress`) on its way to Express's `next(err)`. */
class Forwarded {
  constructor(
    readonly error: unknown,
    readonly next: NextFunction,
  ) {}
}

/**
 * Express middleware that answers the paths Tidings handles and calls `next()` for the rest.
 * Mount it where you like (`app.use('/notify', tidingsExpress(tidings))`): the mount path is the
 * base path. Mount it before body parsers such as `express.json()` if you can, so that the body
 * reaches Tidings as sent; after one, the parsed body is serialized again.
 *
 * Requests go through `getRequestListener` of `@hono/node-server`, which hands the core a
 * lightweight `Request` (URL, method, headers and body read straight from Node's request) and
 * writes the answer with backpressure.
 */
export function tidingsExpress(tidings: Tidings, options: TidingsExpressOptions = {}): RequestHandler {
  const getClientAddress = options.getClientAddress ?? ((req) => req.socket.remoteAddress);
  const listener = getRequestListener(
    (request, env) => {
      const req = env.incoming as ExpressRequest;
      const next = handing;
      handing = null;
      if (next === null) return Promise.reject(new Error('the listener called back outside the middleware'));
      try {
        // A body that a parser already read, or that streams without a declared length, goes
        // through the bridge's own Request (see bridgesBody).
        const web = bridgesBody(req) ? toWebRequest(req, env.outgoing as ServerResponse) : request;
        // Event streams are written straight to `res` (their answer to the listener is a marker
        // it does not write): an open stream then costs little more than its socket.
        const answer = tidings.fetch(web, {
          clientAddress: getClientAddress(req),
          basePath: req.baseUrl,
          eventStream: nodeEventStream(env.outgoing as ServerResponse),
        });
        return answer.then(req.method === 'HEAD' ? withoutBody : undefined, (error: unknown) => {
          throw new Forwarded(error, next);
        });
      } catch (error) {
        return Promise.reject(new Forwarded(error, next));
      }
    },
    {
      // An HTTP/1.0 request may come without Host.
      hostname: 'localhost',
      overrideGlobalObjects: options.overrideGlobalObjects ?? false,
      errorHandler(error) {
        if (error instanceof Forwarded) {
          // Nothing was written: Express's error handling answers.
          error.next(error.error);
          return;
        }
        // A request that is no valid URL (a malformed Host, a backslash in the path).
        return new Response(null, { status: 400 });
      },
    },
  );
  return (req, res, next) => {
    if (!tidings.handles(req.path)) return next();
    handing = next;
    // The listener builds the request's URL from req.url, synchronously, before it returns: the
    // core gets the URL as sent (with the mount path), and Express gets its own back at once.
    const url = req.url;
    req.url = req.originalUrl;
    try {
      listener(req, res).catch(next);
    } finally {
      req.url = url;
      handing = null;
    }
  };
}

/**
 * Whether the core gets the bridge's Request rather than the listener's: for a body that a
 * parser mounted earlier already read (rebuilt from `req.body`), and for one streamed without a
 * Content-Length, which the core reads chunk by chunk and may cancel midway; the bridge's stream
 * then lets go of the Node request, so that the rest can be drained and the connection reused.
 */
function bridgesBody(req: ExpressRequest): boolean {
  const { method } = req;
  if (method === 'GET' || method === 'HEAD') return false;
  return (req.readableEnded && req.body !== undefined) || req.headers['transfer-encoding'] !== undefined;
}

/** A HEAD answer: the same status and headers, and the body, which nobody will read, cancelled. */
function withoutBody(response: Response): Response {
  const { body } = response;
  if (body === null) return response;
  body.cancel().catch(() => {});
  return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
}
