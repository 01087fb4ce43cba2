import type { EventStreamTarget, Tidings } from '@tidings/core';
import { nodeEventStream } from '@tidings/core/node';
import { type Context, Hono } from 'hono';
import { HonoRequest } from 'hono/request';
import { baseRoutePath, basePath as mountPath } from 'hono/route';

/** Options of {@link tidingsHono}. */
export interface TidingsHonoOptions {
  /**
   * The path Tidings answers under inside this sub-app, e.g. `/notify` for `/notify/v1/*`. A path
   * the sub-app is routed under (`app.route('/notify', tidingsHono(tidings))`) is added to it.
   * @default ''
   */
  basePath?: string;
  /**
   * The client's socket address, which the core uses for per-IP limits (and to which it applies
   * `trustProxy`). @default the Node socket address on `@hono/node-server`, else undefined
   */
  getClientAddress?: (c: Context) => string | undefined;
  /**
   * On `@hono/node-server`, write event streams straight to the Node response rather than as a
   * `Response` body: an open stream then holds far less memory. Such an answer is written
   * before `tidings.fetch` resolves, so headers that middleware adds to `c.res` afterwards do
   * not reach it (headers set before, on the Node response, do). Elsewhere it changes nothing.
   * @default true
   */
  nodeStreams?: boolean;
}

/**
 * A Hono sub-app that hands every request under `${basePath}/v1/*` that Tidings answers to
 * `tidings.fetch`, untouched, and passes other paths on. Mount it with `app.route('/', …)`.
 */
export function tidingsHono(tidings: Tidings, options: TidingsHonoOptions = {}): Hono {
  const ownBase = trimSlashes(options.basePath ?? '');
  const getClientAddress = options.getClientAddress ?? nodeSocketAddress;
  const eventStreamOf = options.nodeStreams === false ? () => undefined : nodeStreamTarget;
  const app = new Hono();
  // The path this sub-app is mounted under, worked out once for a mount without parameters (the
  // usual `app.route('/', …)`), per request for one with them (`app.route('/:tenant', …)`).
  let lastRoutePath: string | null = null;
  let lastHasParameters = false;
  let lastBasePath = '';
  const basePathOf = (c: Context): string => {
    const routePath = mountPattern(c);
    if (routePath !== lastRoutePath) {
      lastRoutePath = routePath;
      lastHasParameters = /[:*]/.test(routePath);
      lastBasePath = trimSlashes(routePath) + ownBase;
    }
    return lastHasParameters ? trimSlashes(mountedAt(c, routePath)) + ownBase : lastBasePath;
  };
  app.all(`${ownBase}/v1/*`, async (c, next) => {
    const basePath = basePathOf(c);
    if (!tidings.handles(c.req.path.slice(basePath.length))) return next();
    const eventStream = eventStreamOf(c);
    return tidings.fetch(c.req.raw, {
      clientAddress: getClientAddress(c),
      basePath,
      ...(eventStream ? { eventStream } : {}),
    });
  });
  return app;
}

/**
 * Whether the app runs on this package's copy of Hono. hono/route's helpers read the route that
 * matched through a symbol private to a copy; an app on another one (a CommonJS app loads Hono's
 * CommonJS build, this package its ES module build) carries the match under its own symbol.
 */
function onOwnHono(c: Context): boolean {
  return c.req instanceof HonoRequest;
}

/** The path pattern the sub-app is routed under: `''`, `/notify`, `/:tenant`. */
function mountPattern(c: Context): string {
  if (onOwnHono(c)) return baseRoutePath(c);
  // Another copy of Hono: the route through the request's own getter, which every Hono 4 has.
  const { matchedRoutes, routeIndex } = c.req as unknown as {
    matchedRoutes: { basePath: string }[];
    routeIndex: number;
  };
  return matchedRoutes[routeIndex]?.basePath ?? '';
}

/** The path the sub-app is mounted at for this request, given a `pattern` with parameters. */
function mountedAt(c: Context, pattern: string): string {
  if (onOwnHono(c)) return mountPath(c);
  // Each parameter of the pattern stands for one segment of the path.
  const segments = pattern.split('/').filter((segment) => segment !== '').length;
  return `/${c.req.path
    .split('/')
    .filter((segment) => segment !== '')
    .slice(0, segments)
    .join('/')}`;
}

/** `''` or `/a/b`: a leading slash, no trailing one, so that paths join by concatenation. */
function trimSlashes(path: string): string {
  const inner = path.replace(/^\/+|\/+$/g, '');
  return inner === '' ? '' : `/${inner}`;
}

/**
 * Reads `c.env.incoming.socket.remoteAddress`, where `@hono/node-server` puts the Node request,
 * without importing it: on other runtimes the shape is absent and the answer is undefined.
 */
function nodeSocketAddress(c: Context): string | undefined {
  const env: unknown = c.env;
  const bindings = readProperty(env, 'server') ?? env;
  const address = readProperty(readProperty(readProperty(bindings, 'incoming'), 'socket'), 'remoteAddress');
  return typeof address === 'string' ? address : undefined;
}

/** The event stream target of `c.env.outgoing`, the Node response `@hono/node-server` hands over, if any. */
function nodeStreamTarget(c: Context): EventStreamTarget | undefined {
  const env: unknown = c.env;
  const outgoing = readProperty(readProperty(env, 'server') ?? env, 'outgoing');
  if (typeof readProperty(outgoing, 'writeHead') !== 'function') return undefined;
  return nodeEventStream(outgoing as Parameters<typeof nodeEventStream>[0]);
}

function readProperty(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
