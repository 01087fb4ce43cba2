import type { Tidings } from '@tidings/core';

/** The Tidings instance, or what makes it once: it is made at the first request, not at build time. */
export type TidingsSource = Tidings | PromiseLike<Tidings> | (() => Tidings | PromiseLike<Tidings>);

/** Options of {@link tidingsNext}. */
export interface TidingsNextOptions {
  /**
   * The path of the route's folder, under which Tidings answers: `/notify` for
   * `app/notify/[...path]/route.ts`, with next.config's `basePath` in front if the app has one.
   * @default ''
   */
  basePath?: string;
  /**
   * The client's address, which the core uses for per-IP limits (and to which it applies
   * `trustProxy`). Next.js gives a route handler no socket: `next start` writes the socket's
   * address into `X-Forwarded-For` when a request comes without one, and keeps one that came with
   * the request. @default the last address of `X-Forwarded-For`
   */
  getClientAddress?: (request: Request) => string | undefined;
}

/** A route handler of the App Router: a Web `Request` in, a `Response` out. */
export type TidingsRouteHandler = (request: Request) => Promise<Response>;

/** The handlers a `route.ts` exports, one per method, all the same. */
export interface TidingsRouteHandlers {
  GET: TidingsRouteHandler;
  HEAD: TidingsRouteHandler;
  POST: TidingsRouteHandler;
  PUT: TidingsRouteHandler;
  PATCH: TidingsRouteHandler;
  DELETE: TidingsRouteHandler;
  OPTIONS: TidingsRouteHandler;
}

/**
 * The route handlers of a catch-all App Router route that serves Tidings (Node.js runtime):
 *
 * ```ts
 * // app/notify/[...path]/route.ts
 * export const { GET, HEAD, POST, OPTIONS } = tidingsNext(getTidings, { basePath: '/notify' });
 * export const dynamic = 'force-dynamic';
 * ```
 *
 * Each request goes to `tidings.fetch` as it came (the core answers a path it does not know with
 * its own 404), and its answer, an event stream included, goes back as the route's `Response`.
 * OPTIONS is the core's too, so that its CORS preflights are answered as documented.
 */
export function tidingsNext(source: TidingsSource, options: TidingsNextOptions = {}): TidingsRouteHandlers {
  const basePath = trimSlashes(options.basePath ?? '');
  const getClientAddress = options.getClientAddress ?? lastForwardedFor;
  // Made once, at the first request; a source that failed (a database not up yet) is asked again.
  let made: Promise<Tidings> | null = null;
  const tidings = () => {
    made ??= Promise.resolve(typeof source === 'function' ? source() : source).then(
      (instance) => {
        if (typeof instance?.fetch !== 'function') {
          throw new TypeError('tidingsNext: the source must give the instance createTidings() returned');
        }
        return instance;
      },
      (error: unknown) => {
        made = null;
        throw error;
      },
    );
    return made;
  };
  const handler: TidingsRouteHandler = async (request) =>
    (await tidings()).fetch(request, { basePath, clientAddress: getClientAddress(request) });
  return {
    GET: handler,
    HEAD: handler,
    POST: handler,
    PUT: handler,
    PATCH: handler,
    DELETE: handler,
    OPTIONS: handler,
  };
}

/** The last address of `X-Forwarded-For`: the one `next start` (or the proxy in front) wrote. */
function lastForwardedFor(request: Request): string | undefined {
  const header = request.headers.get('x-forwarded-for');
  const last = header?.split(',').at(-1)?.trim();
  return last === '' ? undefined : last;
}

/** `''` or `/a/b`: a leading slash, no trailing one, so that paths join by concatenation. */
function trimSlashes(path: string): string {
  const inner = path.replace(/^\/+|\/+$/g, '');
  return inner === '' ? '' : `/${inner}`;
}
