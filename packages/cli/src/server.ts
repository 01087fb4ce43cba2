import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import {
  createConsoleLogger,
  createConsoleMailer,
  createMemoryHub,
  createSecretSealer,
  createTidings,
  type Feature,
  inbox,
  type Logger,
  type Mailer,
  type PushOptions,
  parseSecretKeys,
  prepareStoredSecrets,
  type RequestLogOptions,
  requestLog,
  type SecretKeyError,
  type Store,
  type Tidings,
  TidingsError,
  type TidingsOptions,
} from '@tidings/core';
import { serveNode, webhooks, webPush } from '@tidings/core/node';
import {
  createAccountService,
  createSmtpMailer,
  type DashboardStore,
  recordAudit,
  type SignupPolicy,
  tidingsDashboard,
} from '@tidings/dashboard';
import { tidingsHono } from '@tidings/hono';
import type { PrometheusMetrics } from '@tidings/metrics';
import { Hono } from 'hono';
import { registerApiReference } from './api-reference.js';
import { registerDemoPage } from './demo.js';
import { type DemoCredentials, demoFilePath, ensureDemo, savesDemoFile } from './demo-setup.js';
import { answerMalformedRequests, answerProblems, requestErrorAnswer } from './edge-problems.js';
import type { ListenAddress } from './listen-address.js';
import { type MetricsListener, startMetricsListener } from './metrics-listener.js';
import { openDashboardStore, openStore, storeTarget } from './open-store.js';
import { openRedisPorts, type RedisPorts, type ServeRedisOptions } from './redis-ports.js';
import { registerSdkFiles } from './sdk-files.js';
import { type LoadedSecretKeys, OperatorRefusal, SECRET_KEY_SOURCES } from './secret-keys.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** The SQLite database file, created if missing, or a `postgres://` URL (`?schema=` names the schema). */
  db: string;
  /** Port to listen on; 0 picks a free one. @default 8787 */
  port?: number;
  /** Address to bind. @default '127.0.0.1' */
  host?: string;
  /** Tidings options besides the store and the features, which the server assembles. @default {} */
  tidings?: Omit<TidingsOptions, 'store' | 'features'>;
  /**
   * The secrets keys that seal webhook secrets and the VAPID private key in the store, and where
   * they were set (for messages). @default none: secrets are stored unsealed, and the start says so
   */
  secrets?: LoadedSecretKeys;
  /** Web Push, on with a `vapidSubject` (`webPush` of `@tidings/core/node`). @default off */
  push?: PushOptions;
  /** The request log (`requestLog` of `@tidings/core`); `false` turns it off. @default on */
  requestLog?: RequestLogOptions | false;
  /** Create (on an empty store) or load the demo account, project and keys, and serve /demo. @default false */
  demo?: boolean;
  /** Redis for the limiter and the hub, so that many servers share one store. @default none (in process) */
  redis?: ServeRedisOptions;
  /** How long open connections may take to finish once closing starts, in milliseconds. @default 3000 */
  shutdownGraceMs?: number;
  /** Serve Prometheus metrics at `/metrics` on a listener of its own at this address. @default null (off) */
  metrics?: ListenAddress | null;
  /**
   * `'full'`: a 201 means the send is on disk, power loss included. `'normal'`: faster sends that
   * survive a crash of the process, not a power loss (the SQLite store's `synchronous`). @default 'full'
   */
  sqliteSynchronous?: 'full' | 'normal';
  /** The web dashboard under `/dashboard`. @default { enabled: true } */
  dashboard?: ServerDashboardOptions;
  /**
   * How webhooks are sent (always, on every instance): `allowHttp` sends to `http:` URLs,
   * `allowPrivateAddresses` to private and loopback addresses; development and tests only.
   * @default {}
   */
  webhooks?: { allowHttp?: boolean; allowPrivateAddresses?: boolean };
}

/** The mailer of the dashboard (and of the mail about webhook endpoints disabled for failing). */
function dashboardMailer(options: ServerDashboardOptions): Mailer {
  return (
    options.mailer ??
    (options.smtpUrl
      ? createSmtpMailer({ url: options.smtpUrl, ...(options.mailFrom ? { from: options.mailFrom } : {}) })
      : createConsoleMailer())
  );
}

/** How the standalone server runs the dashboard. */
export interface ServerDashboardOptions {
  /** Serve it. @default true */
  enabled?: boolean;
  /** Who may sign up. @default 'open' */
  signup?: SignupPolicy;
  /** Send mail over SMTP (`smtp://user:pass@host:587`); without it, codes are printed on stderr. @default null */
  smtpUrl?: string | null;
  /** The sender of the dashboard's mail. @default `Tidings <no-reply@SMTP host>` */
  mailFrom?: string;
  /** A mailer of the embedder's (tests): overrides `smtpUrl`. */
  mailer?: Mailer;
}

/** A server started by {@link startServer}. */
export interface RunningServer {
  /** `http://HOST:PORT`, with the real port. */
  url: string;
  port: number;
  tidings: Tidings;
  /** `http://HOST:PORT/metrics` of the metrics listener; null when metrics are off. */
  metricsUrl: string | null;
  /** The demo credentials with `demo`; null without it, or when the store is not the demo's. */
  demo: {
    credentials: DemoCredentials;
    created: boolean;
    file: string | null;
    /** A one-time code to sign in to the dashboard as the demo account; null without the dashboard. */
    signIn: { email: string; code: string; minutes: number } | null;
  } | null;
  /** The Tidings options it runs with (besides the store and the features). */
  tidingsOptions: Omit<TidingsOptions, 'store' | 'features'>;
  /** The VAPID subject and public key browsers subscribe with; null when Web Push is off. */
  push: { vapidSubject: string; publicKey: string } | null;
  /** Stops accepting, closes open streams, waits for requests in flight, closes the store. */
  close(): Promise<void>;
}

/** `host` as it goes in a URL: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The standalone app: `/healthz`, the API reference at `/docs`, the browser SDK's files under
 * `/sdk` (sdk-files.ts), the demo page with `demo`, the
 * dashboard, and Tidings under `/v1`. The dashboard takes its hub, limits, proxy trust and public
 * URL from `tidings`; `dashboard.store` is its own port on the same database.
 */
export function createServerApp(
  tidings: Tidings,
  demo: DemoCredentials | null,
  dashboard: { store: DashboardStore; options: ServerDashboardOptions } | null = null,
): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  registerApiReference(app, tidings);
  registerSdkFiles(app);
  if (demo) registerDemoPage(app, { tidings, demo });
  if (dashboard && dashboard.options.enabled !== false) {
    const { options } = dashboard;
    const mailer = dashboardMailer(options);
    app.route('/', tidingsDashboard({ tidings, store: dashboard.store, mailer, signup: options.signup ?? 'open' }));
  }
  app.route('/', tidingsHono(tidings));
  answerProblems(app);
  return app;
}

/** The path of a request target, without its query; an absolute form (`http://h/p`) is no path. */
function requestPath(url: string | undefined): string {
  const target = url ?? '/';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/**
 * The server's listener: Tidings' own routes go through `@tidings/core/node`'s bridge, as under
 * the Express adapter, which writes answers and event streams straight to the Node response;
 * everything else (the dashboard, `/docs`, `/healthz`, a request target in absolute form) goes to
 * the Hono app, which answers Tidings' routes too.
 */
export function serverListener(tidings: Tidings, app: Hono, hostname: string): RequestListener {
  const logger = createConsoleLogger();
  const errorAnswer = requestErrorAnswer(logger);
  const rest = getRequestListener(app.fetch, { hostname, errorHandler: errorAnswer });
  const failed = async (res: ServerResponse, error: unknown) => {
    const answer = errorAnswer(error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(await answer.text());
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!tidings.handles(requestPath(req.url))) {
      void rest(req, res);
      return;
    }
    serveNode(tidings, req, res, { clientAddress: req.socket.remoteAddress }).catch((error) => failed(res, error));
  };
}

/** How long the sign-in code `--demo` prints stays good. */
const DEMO_SIGN_IN_MINUTES = 60;

/** A fresh one-time sign-in code for the demo account, printed beside its keys. */
async function demoSignIn(tidings: Tidings, store: DashboardStore, credentials: DemoCredentials) {
  const account = await tidings.admin.getAccount(credentials.accountId).catch(() => null);
  if (!account) return null;
  const accounts = createAccountService({
    store,
    admin: tidings.admin,
    clock: tidings.admin.settings.clock,
    mailer: createConsoleMailer(),
  });
  const code = await accounts.issueSignInCode(account.email, DEMO_SIGN_IN_MINUTES * 60_000);
  return { email: account.email, code, minutes: DEMO_SIGN_IN_MINUTES };
}

/**
 * The server's features: the inbox, the request log (unless turned off), webhooks (every instance
 * sends them: claims never hand a job to two) and Web Push when it has a VAPID subject. An
 * endpoint disabled for failing is recorded in the audit log (actor `system`) and its project's
 * account is told with the dashboard's mailer.
 */
function serverFeatures(
  options: Pick<StartServerOptions, 'push' | 'requestLog' | 'webhooks'>,
  dashboard: { store: DashboardStore; mailer: Mailer },
): Feature[] {
  const { requestLog: log = {}, webhooks: sending = {} } = options;
  return [
    inbox(),
    // Turned off, it still deletes what it kept before, after the retention.
    requestLog(log === false ? { record: false } : log),
    webhooks({
      allowHttp: sending.allowHttp === true,
      allowPrivateAddresses: sending.allowPrivateAddresses === true,
      mailer: dashboard.mailer,
      async audit(entry) {
        await recordAudit(dashboard.store, Date.now(), { source: 'cli', name: 'system' }, entry);
      },
    }),
    ...(options.push ? [webPush(options.push)] : []),
  ];
}

/** Tidings over `store`, with the options `options` makes: bad configuration is the operator's to fix. */
function openTidings(store: Store, options: () => Omit<TidingsOptions, 'store'>): Tidings {
  try {
    return createTidings({ ...options(), store });
  } catch (error) {
    // createTidings (and a feature's function) refuses bad configuration with a TypeError: the operator's to fix.
    if (error instanceof TypeError) throw new TidingsError('VALIDATION_FAILED', error.message);
    throw error;
  }
}

/**
 * The check of the stored secrets before anything runs on them: every one must open with the keys
 * set, or the start is refused with one line and nothing written; with a key set, values still in
 * the clear are sealed. Returns what the start says once it has gone through (the options
 * checked): that secrets are stored unsealed, without a key.
 */
async function prepareSecrets(store: Store, secrets: LoadedSecretKeys, logger: Logger): Promise<() => void> {
  let sealer: ReturnType<typeof createSecretSealer>;
  try {
    sealer = createSecretSealer(parseSecretKeys(secrets.keys, secrets.source));
  } catch (error) {
    throw new OperatorRefusal((error as SecretKeyError).message);
  }
  const prepared = await prepareStoredSecrets(store, sealer, secrets.source);
  if (prepared.kind === 'refused') throw new OperatorRefusal(prepared.message);
  return () => {
    if (prepared.unsealed) {
      logger.warn(
        `secrets are stored unsealed: no secrets key is set (${SECRET_KEY_SOURCES}); see docs/deploy.md#secrets-at-rest`,
        { task: 'start' },
      );
    } else if (prepared.sealedNow > 0) {
      logger.info(`sealed ${prepared.sealedNow} stored secrets under key ${sealer.sealingKeyId}`, { task: 'start' });
    }
  };
}

/** Opens the store, builds Tidings and the app, and listens. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { db, port = 8787, host = '127.0.0.1', shutdownGraceMs = 3000 } = options;
  const target = storeTarget(db);
  const store = await openStore(target, 'serve', { sqliteSynchronous: options.sqliteSynchronous ?? 'full' });
  // The in-process hub, unless Redis carries the messages between servers.
  const ownHub = createMemoryHub();
  let tidings: Tidings | undefined;
  let redis: RedisPorts | undefined;
  let metricsListener: MetricsListener | null = null;
  try {
    if (options.redis) redis = await openRedisPorts(options.redis);
    let metrics: PrometheusMetrics | null = null;
    if (options.metrics) {
      // Loaded only when asked for: every other command of the CLI starts without prom-client.
      const { createMetricsHandler, createPrometheusMetrics } = await import('@tidings/metrics');
      metrics = createPrometheusMetrics();
      metricsListener = await startMetricsListener(options.metrics, createMetricsHandler(metrics.registry));
    }
    const secrets = options.secrets ?? { keys: [], source: SECRET_KEY_SOURCES };
    const reportSecrets = await prepareSecrets(store, secrets, options.tidings?.logger ?? createConsoleLogger());
    // One hub for the API and the dashboard's live view, which listens to it.
    const hub = redis?.hub ?? ownHub;
    const dashboardStore = await openDashboardStore(store);
    const tidingsOptions: Omit<TidingsOptions, 'store' | 'features'> = {
      hub,
      ...options.tidings,
      secretKeys: secrets.keys,
      ...(redis && { limiter: redis.limiter }),
      ...(metrics ? { metrics } : {}),
    };
    tidings = openTidings(store, () => ({
      ...tidingsOptions,
      features: serverFeatures(options, { store: dashboardStore, mailer: dashboardMailer(options.dashboard ?? {}) }),
    }));
    reportSecrets();
    const demo = options.demo ? await ensureDemo(tidings.admin, db) : null;
    const app = createServerApp(tidings, demo?.credentials ?? null, {
      store: dashboardStore,
      options: options.dashboard ?? {},
    });
    const server = createServer(serverListener(tidings, app, host));
    answerMalformedRequests(server);
    const address = await new Promise<AddressInfo>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve(server.address() as AddressInfo));
    });
    const running: Tidings = tidings;
    const push = options.push
      ? { vapidSubject: options.push.vapidSubject, publicKey: (await running.admin.getVapidKey()).public_key }
      : null;
    const signIn =
      demo && options.dashboard?.enabled !== false ? await demoSignIn(running, dashboardStore, demo.credentials) : null;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${urlHost(host)}:${address.port}`,
      port: address.port,
      tidings: running,
      tidingsOptions: options.tidings ?? {},
      push,
      metricsUrl:
        options.metrics && metricsListener
          ? `http://${urlHost(options.metrics.host)}:${metricsListener.port}/metrics`
          : null,
      demo: demo && { ...demo, file: savesDemoFile(db) ? demoFilePath(db) : null, signIn },
      close() {
        closing ??= (async () => {
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          // server.close() looks at every open connection once; the streams' first slice waits
          // for the next turn, so that the two do not hold the event loop in one block.
          await new Promise((resolve) => setImmediate(resolve));
          // Ends the event streams, which server.close() would otherwise wait for forever.
          await running.close();
          // server.close() drops idle keep-alive connections only once, when called; a connection
          // whose stream just ended becomes idle later, and would hold it open until its timeout.
          const idle = setInterval(() => {
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          }, 25);
          const force = setTimeout(() => {
            if ('closeAllConnections' in server) server.closeAllConnections();
          }, shutdownGraceMs);
          await closed;
          clearInterval(idle);
          clearTimeout(force);
          await redis?.close();
          await ownHub.close();
          await metricsListener?.close();
          await store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await metricsListener?.close();
    await tidings?.close();
    await redis?.close();
    await ownHub.close();
    await store.close();
    throw error;
  }
}
