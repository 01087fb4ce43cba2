import type { Tidings } from '@tidings/core';
import { serveNode } from '@tidings/core/node';
import type { Request as ExpressRequest, RequestHandler } from 'express';

/** Options of {@link tidingsExpress}. */
export interface TidingsExpressOptions {
  /**
   * The client's socket address, which the core uses for per-IP limits (and to which it applies
   * `trustProxy`). @default `req.socket.remoteAddress`
   */
  getClientAddress?: (req: ExpressRequest) => string | undefined;
  /**
   * No longer used: answers are written straight to Express's response whatever the globals are,
   * and the process's global `Request` and `Response` are never replaced. Accepted so that
   * existing code keeps working. @deprecated
   * @default false
   */
  overrideGlobalObjects?: boolean;
}

/**
 * Express middleware that answers the paths Tidings handles and calls `next()` for the rest.
 * Mount it where you like (`app.use('/notify', tidingsExpress(tidings))`): the mount path is the
 * base path. Mount it before body parsers such as `express.json()` if you can, so that the body
 * reaches Tidings as sent; after one, the parsed body is serialized again. A failure of the core
 * goes to `next(err)`, Express's error handling.
 *
 * The request goes through `@tidings/core/node`'s bridge, which the standalone server's event
 * streams use too: the answer is written straight to `res`, with backpressure.
 */
export function tidingsExpress(tidings: Tidings, options: TidingsExpressOptions = {}): RequestHandler {
  const getClientAddress = options.getClientAddress ?? ((req: ExpressRequest) => req.socket.remoteAddress);
  return (req, res, next) => {
    if (!tidings.handles(req.path)) return next();
    try {
      serveNode(tidings, req, res, { basePath: req.baseUrl, clientAddress: getClientAddress(req) }).catch(next);
    } catch (error) {
      next(error);
    }
  };
}
