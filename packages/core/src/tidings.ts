import { type AdminApi, createAdminApi } from './admin.js';
import { type ConnectTokenObject, mintConnectToken } from './connect-tokens.js';
import type { RouteContext, Services } from './context.js';
import { TidingsError } from './errors.js';
import { type CorsKind, corsHeaders, preflightHeaders } from './http/cors.js';
import { problemResponse, type ReplyContext, reply } from './http/responses.js';
import { createMemoryHub } from './hub/memory-hub.js';
import { newId } from './ids.js';
import { createMemoryLimiter, ipScopeKey, resolveClientIp } from './limiter/index.js';
import { resolveOptions, type TidingsOptions } from './options.js';
import { matchRoute, pathOf } from './router.js';
import { createRoutes } from './routes/index.js';
import { StreamRegistry } from './stream/stream-registry.js';
import { createSweeper } from './sweeper.js';

/** What the host tells the core about a request that the `Request` itself cannot. */
export interface RequestContext {
  /** The socket's remote address; `X-Forwarded-For` is believed only as `trustProxy` says. */
  clientAddress?: string;
  /** The path Tidings is mounted under, e.g. `/notify`; it is stripped before routing. @default '' */
  basePath?: string;
}

/** A Tidings instance: a Web-standard request handler, the admin API, and its lifecycle. */
export interface Tidings {
  /** Answers one request. Never throws: every failure is a problem response. */
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  /** True when `pathname` (after the base path) is one Tidings answers, so hosts can pass others on. */
  handles(pathname: string): boolean;
  /** The typed operations of the dashboard. */
  admin: AdminApi;
  /**
   * Mints a connect token for a recipient from trusted server code, without an HTTP round trip.
   * `connect_url` starts with `baseUrl`, else the `publicUrl` option, else it is a path.
   */
  createConnectToken(input: {
    projectId: string;
    recipient: string;
    ttlSeconds?: number;
    baseUrl?: string;
  }): Promise<ConnectTokenObject>;
  /** Runs one sweep: expires attempts past their ttl, reaps stale browsers, purges old records. */
  sweep(): Promise<void>;
  /** Number of event streams open on this instance. */
  openStreams(): number;
  /** Closes open streams (clients resume elsewhere) and stops timers. The store is the caller's to close. */
  close(): Promise<void>;
}

function normaliseBasePath(basePath: string | undefined): string {
  if (!basePath || basePath === '/') return '';
  return `/${basePath.replace(/^\/+|\/+$/g, '')}`;
}

/** Paths with secrets in them, made safe to log. */
function redactPath(pathname: string): string {
  return pathname.replace(/\/connect\/[^/]+/, '/connect/[redacted]');
}

/** Creates a Tidings instance over a store. Bad options throw here, not at the first request. */
export function createTidings(tidingsOptions: TidingsOptions): Tidings {
  const options = resolveOptions(tidingsOptions);
  const ownsLimiter = options.limiter === null;
  const ownsHub = options.hub === null;
  const limiter = options.limiter ?? createMemoryLimiter();
  const hub = options.hub ?? createMemoryHub();
  const streams = new StreamRegistry({
    store: options.store,
    hub,
    clock: options.clock,
    logger: options.logger,
    heartbeatMs: options.heartbeatMs,
    staleBrowserMs: options.staleBrowserMs,
  });
  const services: Services = { options, limiter, hub, streams };
  const routes = createRoutes(options);
  const sweeper = createSweeper(options, hub, streams);
  const admin = createAdminApi(options, hub);
  const { logger } = options;

  let sweepTimer: ReturnType<typeof setInterval> | null = null;
  if (options.sweepIntervalMs > 0) {
    sweepTimer = setInterval(() => {
      sweeper.sweep().catch((error: unknown) => logger.error('sweep failed', { error: String(error) }));
    }, options.sweepIntervalMs);
    if (typeof sweepTimer === 'object' && 'unref' in sweepTimer) sweepTimer.unref();
  }

  async function handle(request: Request, context: RequestContext, requestId: string) {
    const fullPath = pathOf(request.url);
    const basePath = normaliseBasePath(context.basePath);
    const pathname = basePath && fullPath.startsWith(basePath) ? fullPath.slice(basePath.length) || '/' : fullPath;
    const matched = matchRoute(routes, pathname);
    const responseHeaders: Record<string, string> = {};
    const cors: CorsKind | null = matched?.route.cors ?? null;
    const edgeHeaders: Record<string, string> = cors ? { ...corsHeaders } : {};
    if (cors === 'browser') edgeHeaders['Referrer-Policy'] = 'no-referrer';
    edgeHeaders['Request-Id'] = requestId;
    const replyContext: ReplyContext = { responseHeaders, edgeHeaders };
    try {
      if (!matched) throw new TidingsError('NOT_FOUND', `No route ${request.method} ${redactPath(pathname)}`);
      const methods = Object.keys(matched.route.methods);
      if (request.method === 'OPTIONS') {
        return reply(replyContext, 204, null, preflightHeaders(matched.route.cors, methods));
      }
      const handler = matched.route.methods[request.method as 'GET' | 'POST'];
      if (!handler) {
        throw new TidingsError('METHOD_NOT_ALLOWED', `Use ${methods.join(' or ')}`, {
          headers: { Allow: [...methods, 'OPTIONS'].join(', ') },
        });
      }
      const clientIp = resolveClientIp({
        clientAddress: context.clientAddress,
        forwardedFor: request.headers.get('x-forwarded-for'),
        trustProxy: options.trustProxy,
      });
      let url: URL | undefined;
      const ctx: RouteContext = {
        request,
        // Parsed only by the routes that read the query or the origin.
        get url() {
          url ??= new URL(request.url);
          return url;
        },
        params: matched.params,
        requestId,
        clientIpKey: ipScopeKey(clientIp),
        now: options.clock.now(),
        get publicBase() {
          return options.publicUrl ?? `${this.url.origin}${basePath}`;
        },
        responseHeaders,
        edgeHeaders,
      };
      return await handler(ctx, services);
    } catch (error) {
      return problemResponse(asTidingsError(error, request, pathname, requestId), requestId, replyContext);
    }
  }

  function asTidingsError(error: unknown, request: Request, pathname: string, requestId: string): TidingsError {
    if (error instanceof TidingsError) return error;
    logger.error('request failed', {
      request_id: requestId,
      method: request.method,
      path: redactPath(pathname),
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return new TidingsError('INTERNAL_ERROR', `Something went wrong; quote request id ${requestId} when asking`);
  }

  return {
    async fetch(request, context = {}) {
      const requestId = newId('req');
      try {
        return await handle(request, context, requestId);
      } catch (error) {
        // Nothing is expected here (handle() turns failures into problems); answer rather than throw.
        logger.error('response could not be finished', { request_id: requestId, error: String(error) });
        return problemResponse(new TidingsError('INTERNAL_ERROR', 'Something went wrong'), requestId);
      }
    },
    handles(pathname) {
      return matchRoute(routes, pathname) !== null;
    },
    admin,
    async createConnectToken({ projectId, recipient, ttlSeconds, baseUrl }) {
      const project = await options.store.getProject(projectId);
      if (!project) throw new TidingsError('NOT_FOUND', `No project with id ${projectId}`);
      if (project.suspended) throw new TidingsError('PROJECT_SUSPENDED', 'This project is suspended');
      return mintConnectToken(options, {
        projectId,
        recipient,
        ttlSeconds: ttlSeconds ?? null,
        now: options.clock.now(),
        publicBase: (baseUrl ?? options.publicUrl ?? '').replace(/\/+$/, ''),
      });
    },
    sweep: () => sweeper.sweep(),
    openStreams: () => streams.size,
    async close() {
      if (sweepTimer !== null) clearInterval(sweepTimer);
      await streams.close();
      if (ownsLimiter) await limiter.close();
      if (ownsHub) await hub.close();
    },
  };
}
