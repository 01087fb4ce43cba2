import { type AdminApi, createAdminApi } from './admin/api.js';
import { type ConnectTokenObject, mintConnectToken } from './delivery/connect-tokens.js';
import { deliveryRoutes } from './delivery/routes.js';
import { StreamRegistry } from './delivery/stream/stream-registry.js';
import { createSweeper } from './delivery/sweeper.js';
import { installFeatures } from './features.js';
import { openApiRoute } from './openapi/route.js';
import { type ResolvedOptions, resolveOptions, type TidingsOptions } from './options.js';
import type { RequestCaller, RequestConcerns, RouteContext, Services } from './pipeline/context.js';
import { TidingsError } from './pipeline/errors.js';
import { type CorsKind, corsHeaders, preflightHeaders } from './pipeline/http/cors.js';
import { bareReplyContext, NO_HEADERS, problemResponse, reply } from './pipeline/http/responses.js';
import { namedProject, throughProjectGate } from './pipeline/project-gate.js';
import { compileRoute, matchRoute, pathOf, type RouteMethod } from './pipeline/router.js';
import type { EventStreamTarget } from './ports/event-sink.js';
import { noopMetrics } from './ports/metrics.js';
import type { ProjectRecord } from './ports/records.js';
import { createMemoryHub } from './shared/hub/memory-hub.js';
import { watchHub } from './shared/hub/watched-hub.js';
import { newId } from './shared/ids.js';
import { createJobRunner, type JobRunner } from './shared/job-runner.js';
import { createClientIpKeys } from './shared/limiter/client-ip.js';
import { createMemoryLimiter } from './shared/limiter/memory-limiter.js';
import { instrumentLimiter } from './shared/metrics/instrument-limiter.js';
import { instrumentStore } from './shared/metrics/instrument-store.js';
import { ensureAppProject } from './transactions/app-project.js';
import { deliverOnCommit } from './transactions/delivery-on-commit.js';
import { createNotificationsApi, type NotificationsApi } from './transactions/in-process.js';
import { transactionalSendsOf } from './transactions/transaction.js';

/** What the host tells the core about a request that the `Request` itself cannot. */
export interface RequestContext {
  /** The socket's remote address; `X-Forwarded-For` is believed only as `trustProxy` says. */
  clientAddress?: string;
  /** The path Tidings is mounted under, e.g. `/notify`; it is stripped before routing. @default '' */
  basePath?: string;
  /**
   * A connection of the host's that an event stream answer may be written to directly, which
   * holds an open stream in less memory than a `Response` body (`nodeEventStream` of
   * `@tidings/core/node` for `node:http`). Without it, a stream is answered as a `Response`
   * whose body is a `ReadableStream`.
   */
  eventStream?: EventStreamTarget;
  /**
   * The host writes an answer the core made from text through `textAnswerOf` (as
   * `@tidings/core/node` does), so the core may answer with a `Response` whose Web objects are
   * built only if something reads them. Every answer is still a whole `Response`. @default false
   */
  writesTextAnswers?: boolean;
}

/** A Tidings instance: a Web-standard request handler, the admin API, and its lifecycle. */
export interface Tidings {
  /** Answers one request. Never throws: every failure is a problem response. */
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  /** True when `pathname` (after the base path) is one Tidings answers, so hosts can pass others on. */
  handles(pathname: string): boolean;
  /** The typed operations of the dashboard. */
  admin: AdminApi;
  /** Sends from the application's code, alone or through its own transaction (docs/transactions.md). */
  notifications: NotificationsApi;
  /**
   * The project the instance names (`createTidings({ project })`), made at the first call if it
   * is not there. Throws when the instance names none.
   */
  project(): Promise<ProjectRecord>;
  /**
   * Mints a connect token for a recipient from trusted server code, without an HTTP round trip.
   * `connect_url` starts with `baseUrl`, else the `publicUrl` option, else it is a path. A
   * `baseUrl` that is an origin alone (no path) is followed by the path Tidings is mounted under:
   * `basePath` when given, else the one of the requests it has answered through an adapter
   * (`app.use('/notify', tidingsExpress(tidings))`, `app.route('/notify', tidingsHono(tidings))`).
   */
  createConnectToken(input: {
    /** @default the project the instance names (`createTidings({ project })`) */
    projectId?: string;
    recipient: string;
    ttlSeconds?: number;
    baseUrl?: string;
    /** The path Tidings is mounted under, e.g. `/notify`. @default the mount path of the requests answered so far */
    basePath?: string;
  }): Promise<ConnectTokenObject>;
  /** Runs one sweep: expires attempts past their ttl, reaps stale browsers, purges old records. */
  sweep(): Promise<void>;
  /** Number of event streams open on this instance. */
  openStreams(): number;
  /**
   * Closes open streams (clients resume elsewhere), stops timers, and stops the job runner once its
   * jobs in flight have finished. The store is the caller's to close.
   */
  close(): Promise<void>;
}

function normaliseBasePath(basePath: string | undefined): string {
  if (!basePath || basePath === '/') return '';
  return `/${basePath.replace(/^\/+|\/+$/g, '')}`;
}

/**
 * Where {@link Tidings.createConnectToken}'s `connect_url` starts: `baseUrl`, with the mount path
 * when it is an origin alone; else `publicUrl` (which names the mount path itself); else the
 * mount path, as a path.
 */
function connectBase(baseUrl: string | undefined, publicUrl: string | null, mountPath: string): string {
  if (baseUrl !== undefined) {
    const trimmed = baseUrl.replace(/\/+$/, '');
    return /^[a-z][a-z0-9+.-]*:\/\/[^/]*$/i.test(trimmed) ? `${trimmed}${mountPath}` : trimmed;
  }
  return publicUrl !== null ? publicUrl.replace(/\/+$/, '') : mountPath;
}

/** Minimum interval between two writes of a key's last-used time (docs/api.md#authentication). */
const LAST_USED_INTERVAL_MS = 60_000;

/**
 * The base path normalised, remembering the last one: a host passes the same one with every
 * request. One per instance, so that two instances mounted under different paths do not share it.
 */
function createBasePathCache(): (basePath: string | undefined) => string {
  let lastInput: string | undefined;
  let last = '';
  return (basePath) => {
    if (basePath !== lastInput) {
      last = normaliseBasePath(basePath);
      lastInput = basePath;
    }
    return last;
  };
}

/** The headers the edge adds to every answer of a route, by its CORS kind (the request id comes on top). */
const EDGE_HEADERS: Record<CorsKind, Readonly<Record<string, string>>> = {
  api: Object.freeze({ ...corsHeaders }),
  browser: Object.freeze({ ...corsHeaders, 'Referrer-Policy': 'no-referrer' }),
};

/**
 * One request as routes see it. A class, so that the URL and the public base are parsed only by
 * the routes that need them without a closure per request.
 */
class RequestScope implements RouteContext {
  responseHeaders: Readonly<Record<string, string>> = NO_HEADERS;
  caller: RequestCaller | null = null;
  concerns: RequestConcerns | null = null;
  #url: URL | undefined;

  constructor(
    readonly request: Request,
    readonly params: Record<string, string>,
    readonly requestId: string,
    readonly clientIpKey: string,
    readonly now: number,
    readonly edgeHeaders: Readonly<Record<string, string>>,
    private readonly publicUrl: string | null,
    private readonly basePath: string,
    readonly eventStream: EventStreamTarget | null,
    readonly writesTextAnswers: boolean,
  ) {}

  get url(): URL {
    this.#url ??= new URL(this.request.url);
    return this.#url;
  }

  get publicBase(): string {
    return this.publicUrl ?? `${this.url.origin}${this.basePath}`;
  }
}

/** The route label of a request that matched no route. */
const UNMATCHED_ROUTE = 'unmatched';

/** Methods that label themselves; any other becomes `other`, so that a client cannot mint labels. */
const METHOD_LABELS = new Set(['GET', 'POST', 'OPTIONS', 'HEAD', 'PUT', 'PATCH', 'DELETE']);

/** What the edge learns about a request for the metrics: the pattern of the route it matched. */
interface RequestTrace {
  route: string;
}

/** With metrics on, every store operation is timed; with them off the store is used as it is. */
function measuredOptions(options: ResolvedOptions): ResolvedOptions {
  if (options.metrics === noopMetrics) return options;
  return { ...options, store: instrumentStore(options.store, options.metrics) };
}

/** Paths with secrets in them, made safe to log. */
function redactPath(pathname: string): string {
  return pathname.replace(/\/connect\/[^/]+/, '/connect/[redacted]');
}

/** Creates a Tidings instance over a store. Bad options throw here, not at the first request. */
export function createTidings(tidingsOptions: TidingsOptions): Tidings {
  const options = measuredOptions(resolveOptions(tidingsOptions));
  const { metrics } = options;
  const measuring = metrics !== noopMetrics;
  const ownsLimiter = options.limiter === null;
  const ownsHub = options.hub === null;
  const givenLimiter = options.limiter ?? createMemoryLimiter();
  const limiter = measuring ? instrumentLimiter(givenLimiter, metrics) : givenLimiter;
  const hub = watchHub(options.hub ?? createMemoryHub());
  const streams = new StreamRegistry({
    store: options.store,
    hub,
    clock: options.clock,
    logger: options.logger,
    metrics,
    heartbeatMs: options.heartbeatMs,
    maxBufferBytes: options.maxStreamBufferBytes,
    instanceId: newId('ins', options.clock.now()),
    staleBrowserMs: options.staleBrowserMs,
    catchUpIntervalMs: options.catchUpIntervalMs,
  });
  const installed = installFeatures(options.features, { options, hub, limiter, streams });
  const services: Services = {
    options,
    limiter,
    hub,
    streams,
    apiKeyChecks: {
      store: options.store,
      limiter,
      limits: options.limits,
      lastUsedIntervalMs: LAST_USED_INTERVAL_MS,
      rateLimitHeaders: options.rateLimitHeaders,
    },
    sendsInFlight: new Set(),
    hooks: installed.hooks,
  };
  const clientIpKeys = createClientIpKeys(options.trustProxy);
  // The contract's routes, then the features', then the document's: each declared once.
  const routes = [...deliveryRoutes(options), ...installed.routes, openApiRoute(options)].map(compileRoute);
  const sweeper = createSweeper(options, hub, streams, installed.hooks, installed.sweeps);
  const admin = createAdminApi(options, hub, givenLimiter, installed.settings);
  const { logger } = options;
  // The project the application names, read at each use (its ids are its name's), so that a
  // suspension from anywhere applies at once; made again if it is not there.
  const ensureProject =
    options.project === null
      ? null
      : (): Promise<ProjectRecord> => ensureAppProject(options.store, options.project!, options.clock.now());
  const transactional = transactionalSendsOf(options.store);
  const notifications = createNotificationsApi({ services, transactional, appProject: ensureProject });
  const listening = deliverOnCommit(transactional, streams, logger);

  // Told of every answered request of a known key (the request log).
  const answered = installed.answered;

  let jobRunner: JobRunner | null = null;
  if (options.jobs !== null) {
    const kinds = { ...options.jobs.kinds, ...installed.jobs };
    if (Object.keys(kinds).length > 0) {
      jobRunner = createJobRunner({ ...options.jobs, kinds, store: options.store, clock: options.clock, logger });
      jobRunner.start();
    }
  }

  let sweepTimer: ReturnType<typeof setInterval> | null = null;
  if (options.sweepIntervalMs > 0) {
    sweepTimer = setInterval(() => {
      sweeper.sweep().catch((error: unknown) => logger.error('sweep failed', { task: 'sweep', error: String(error) }));
    }, options.sweepIntervalMs);
    if (typeof sweepTimer === 'object' && 'unref' in sweepTimer) sweepTimer.unref();
  }

  const basePathOf = createBasePathCache();
  // The path the host mounts this instance under, as its adapter tells it with each request, for
  // the connect URLs minted outside a request (createConnectToken). A request without a base
  // path (made in process, such as the dashboard's) tells nothing.
  let mountPath = '';
  async function handle(request: Request, context: RequestContext, requestId: string, trace: RequestTrace | null) {
    const fullPath = pathOf(request.url);
    const basePath = basePathOf(context.basePath);
    if (context.basePath !== undefined) mountPath = basePath;
    const pathname = basePath && fullPath.startsWith(basePath) ? fullPath.slice(basePath.length) || '/' : fullPath;
    const matched = matchRoute(routes, pathname);
    const edgeHeaders = matched ? EDGE_HEADERS[matched.route.cors] : NO_HEADERS;
    if (trace !== null && matched) trace.route = matched.route.path;
    let ctx: RequestScope | null = null;
    const started = answered.length === 0 ? 0 : performance.now();
    let response: Response;
    try {
      if (!matched) throw new TidingsError('NOT_FOUND', `No route ${request.method} ${redactPath(pathname)}`);
      if (request.method === 'OPTIONS') {
        const methods = Object.keys(matched.route.methods);
        return reply(
          { responseHeaders: NO_HEADERS, edgeHeaders, requestId },
          204,
          null,
          preflightHeaders(matched.route.cors, methods),
        );
      }
      const handler = matched.route.methods[request.method as RouteMethod];
      if (!handler) {
        const methods = Object.keys(matched.route.methods);
        throw new TidingsError('METHOD_NOT_ALLOWED', `Use ${methods.join(' or ')}`, {
          headers: { Allow: [...methods, 'OPTIONS'].join(', ') },
        });
      }
      ctx = new RequestScope(
        request,
        matched.params,
        requestId,
        clientIpKeys.of(context.clientAddress, request),
        options.clock.now(),
        edgeHeaders,
        options.publicUrl ?? null,
        basePath,
        context.eventStream ?? null,
        context.writesTextAnswers === true,
      );
      response = await handler(ctx, services);
    } catch (error) {
      response = problemResponse(
        asTidingsError(error, request, pathname, requestId),
        ctx ?? { responseHeaders: NO_HEADERS, edgeHeaders, requestId, writesTextAnswers: context.writesTextAnswers },
      );
    }
    // Only requests whose key was known (by the API-key checks) are a project's to log.
    if (answered.length > 0 && ctx?.caller) {
      for (const tell of answered) {
        try {
          tell({ ctx, caller: ctx.caller, pathname, response, started });
        } catch (error) {
          // The answer is made: a feature that fails to hear of it does not change it.
          logger.error('a feature failed to hear of an answered request', {
            request_id: requestId,
            error: String(error),
          });
        }
      }
    }
    return response;
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

  async function answer(request: Request, context: RequestContext, trace: RequestTrace | null): Promise<Response> {
    const requestId = newId('req');
    try {
      return await handle(request, context, requestId, trace);
    } catch (error) {
      // Nothing is expected here (handle() turns failures into problems); answer rather than throw.
      logger.error('response could not be finished', { request_id: requestId, error: String(error) });
      return problemResponse(new TidingsError('INTERNAL_ERROR', 'Something went wrong'), bareReplyContext(requestId));
    }
  }

  return {
    async fetch(request, context = {}) {
      if (!measuring) return answer(request, context, null);
      const started = performance.now();
      const trace: RequestTrace = { route: UNMATCHED_ROUTE };
      const response = await answer(request, context, trace);
      const method = METHOD_LABELS.has(request.method) ? request.method : 'other';
      metrics.requestHandled(method, trace.route, response.status, performance.now() - started);
      return response;
    },
    handles(pathname) {
      return matchRoute(routes, pathname) !== null;
    },
    admin,
    notifications,
    project() {
      if (ensureProject === null)
        return Promise.reject(new TypeError('This instance names no project: createTidings({ project })'));
      return ensureProject();
    },
    async createConnectToken({ projectId: givenProjectId, recipient, ttlSeconds, baseUrl, basePath }) {
      const project = await namedProject(
        options.store,
        givenProjectId,
        ensureProject,
        'createConnectToken needs a projectId, or an instance that names its project',
      );
      // The application's own code mints it: the project's gate, with nothing to count.
      await throughProjectGate(services.apiKeyChecks, project, { kind: 'none' }, options.clock.now());
      const projectId = project.id;
      return mintConnectToken(options, {
        projectId,
        recipient,
        ttlSeconds: ttlSeconds ?? null,
        now: options.clock.now(),
        publicBase: connectBase(
          baseUrl,
          options.publicUrl,
          basePath === undefined ? mountPath : normaliseBasePath(basePath),
        ),
      });
    },
    sweep: () => sweeper.sweep(),
    openStreams: () => streams.size,
    async close() {
      if (sweepTimer !== null) clearInterval(sweepTimer);
      const stopListening = await listening;
      await Promise.all([streams.close(), jobRunner?.stop(), stopListening?.()]);
      // After the streams and the jobs: every request answered is told (the request log writes
      // what it holds now), and no job sends any more.
      await installed.close();
      if (ownsLimiter) await limiter.close();
      if (ownsHub) await hub.close();
    },
  };
}
