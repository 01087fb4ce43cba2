import type { Tidings } from '@tidings/core';
import { serveNode } from '@tidings/core/node';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';

/** Options of {@link tidingsFastify}, given to `app.register(tidingsFastify, options)`. */
export interface TidingsFastifyOptions {
  /** The Tidings instance whose routes the plugin serves. */
  tidings: Tidings;
  /**
   * The path Tidings answers under (`/notify` for `/notify/v1/*`), added to the prefix of the
   * instance the plugin is registered on. @default ''
   */
  prefix?: string;
  /**
   * The client's socket address, which the core uses for per-IP limits (and to which it applies
   * its own `trustProxy`, rather than Fastify's). @default `request.raw.socket.remoteAddress`
   */
  getClientAddress?: (request: FastifyRequest) => string | undefined;
  /**
   * Call `tidings.close()` when the Fastify instance closes, in its `preClose` hook: it ends the
   * open event streams, which the server's close would otherwise wait for, and the job runner.
   * Turn it off to close Tidings yourself, before `app.close()`. @default true
   */
  closeTidings?: boolean;
}

/**
 * Serves Tidings' routes on a Fastify app: `app.register(tidingsFastify, { tidings, prefix: '/notify' })`.
 *
 * The routes live in an encapsulated context of their own, whose content-type parsers leave the
 * body unread, so the core reads each body as it was sent (and refuses one too large itself); the
 * app's own routes and parsers are untouched. A request goes through `@tidings/core/node`'s
 * bridge, as with the Express adapter: answers and event streams are written to the raw response
 * (`reply.raw`), with backpressure, and the reply is then hijacked. A path under the prefix that
 * Tidings does not answer goes to the app's not-found handler, and a failure of the core (nothing
 * written yet) to its error handler. Wrapped with fastify-plugin, so that its `preClose` hook
 * (see {@link TidingsFastifyOptions.closeTidings}) is the app's.
 */
export const tidingsFastify: FastifyPluginAsync<TidingsFastifyOptions> = fastifyPlugin(
  async (app: FastifyInstance, options: TidingsFastifyOptions) => {
    const { tidings } = options;
    if (typeof tidings?.fetch !== 'function' || typeof tidings.handles !== 'function') {
      throw new TypeError('tidingsFastify: `tidings` must be the instance createTidings() returned');
    }
    const getClientAddress =
      options.getClientAddress ?? ((request: FastifyRequest) => request.raw.socket.remoteAddress);
    if (options.closeTidings !== false) app.addHook('preClose', () => tidings.close());
    await app.register(
      async (routes) => {
        // The body stays in the request, for the core to read: no parser of this context reads it.
        routes.removeAllContentTypeParsers();
        routes.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
        const basePath = trimSlashes(routes.prefix);
        routes.all('/v1/*', async (request: FastifyRequest, reply: FastifyReply) => {
          if (!tidings.handles(pathOf(request.url).slice(basePath.length))) return reply.callNotFound();
          await serveNode(tidings, request.raw, reply.raw, { basePath, clientAddress: getClientAddress(request) });
          // Written to the raw response: Fastify must not send anything more.
          reply.hijack();
        });
      },
      { prefix: options.prefix ?? '' },
    );
  },
  { fastify: '5.x', name: '@tidings/fastify' },
);

/** The path of a request's URL, without its query. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** `''` or `/a/b`: a leading slash, no trailing one, so that paths join by concatenation. */
function trimSlashes(path: string): string {
  const inner = path.replace(/^\/+|\/+$/g, '');
  return inner === '' ? '' : `/${inner}`;
}
