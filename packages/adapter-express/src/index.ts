import type { Tidings } from '@tidings/core';
import type { Request as ExpressRequest, RequestHandler } from 'express';
import { discardUnreadBody, toWebRequest, writeWebResponse } from './node-bridge.js';

export { type BridgedIncomingMessage, discardUnreadBody, toWebRequest, writeWebResponse } from './node-bridge.js';

/** Options of {@link tidingsExpress}. */
export interface TidingsExpressOptions {
  /**
   * The client's socket address, which the core uses for per-IP limits (and to which it applies
   * `trustProxy`). @default `req.socket.remoteAddress`
   */
  getClientAddress?: (req: ExpressRequest) => string | undefined;
}

/**
 * Express middleware that answers the paths Tidings handles and calls `next()` for the rest.
 * Mount it where you like (`app.use('/notify', tidingsExpress(tidings))`): the mount path is the
 * base path. Mount it before body parsers such as `express.json()` if you can, so that the body
 * reaches Tidings as sent; after one, the parsed body is serialized again.
 */
export function tidingsExpress(tidings: Tidings, options: TidingsExpressOptions = {}): RequestHandler {
  const getClientAddress = options.getClientAddress ?? ((req) => req.socket.remoteAddress);
  return (req, res, next) => {
    if (!tidings.handles(req.path)) return next();
    const request = toWebRequest(req, res);
    tidings
      .fetch(request, { clientAddress: getClientAddress(req), basePath: req.baseUrl })
      .then((response) => writeWebResponse(response, res, req.method))
      .then(() => discardUnreadBody(req), next);
  };
}
