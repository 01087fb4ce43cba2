import type { Feature } from './features.js';
import { inbox } from './inbox/feature.js';
import { type Clock, systemClock } from './ports/clock.js';
import type { Hub } from './ports/hub.js';
import type { Limiter } from './ports/limiter.js';
import { createConsoleLogger, type Logger } from './ports/logger.js';
import { type Metrics, noopMetrics } from './ports/metrics.js';
import type { Store } from './ports/store.js';
import { requestLog } from './request-log/feature.js';
import type { JobHandler, JobRunnerOptions } from './shared/job-runner.js';
import { RATE_LIMIT_HEADER_FORMS, type RateLimitHeaderForm } from './shared/limiter/rate-limit-headers.js';
import { parseSecretKeys } from './shared/sealing/keyring.js';
import { createSecretSealer, type SecretSealer, unsealedSecrets } from './shared/sealing/sealer.js';
import { checkAppProjectName } from './transactions/app-project.js';

/** Request limits per window. The defaults are those of docs/api.md#limits. */
export interface LimitsOptions {
  /** Length of the sliding window in milliseconds. @default 60000 */
  windowMs?: number;
  /** Requests per window with one API key. @default 60 */
  perKey?: number;
  /** Requests per window with all keys of one project. @default 300 */
  perProject?: number;
  /** Requests per window with all keys of one account. @default 600 */
  perAccount?: number;
  /** Requests per window with a missing or invalid key, per client IP. @default 120 */
  invalidKeyPerIp?: number;
  /** GET and POST /v1/connect/{token} per window, per client IP. @default 60 */
  connectPerIp?: number;
  /** POST /v1/events and /v1/browsers/{id}/disconnect together per window, per client IP. @default 300 */
  eventsPerIp?: number;
  /**
   * Reads of inboxes with an API key (`GET /v1/recipients/{recipient}/inbox` and its counts) per
   * window, per project: a scope of their own, so that a badge rendered on the server takes
   * nothing from the sends. @default 1200
   */
  inboxReadsPerProject?: number;
}

/** Options of {@link createTidings}. */
export interface TidingsOptions {
  /** Where state is kept, e.g. `createSqliteStore({ path })` from `@tidings/store-sqlite`. */
  store: Store;
  /** Counts requests. @default createMemoryLimiter() */
  limiter?: Limiter;
  /** Fans deliveries out to open streams. @default createMemoryHub() */
  hub?: Hub;
  /** @default systemClock */
  clock?: Clock;
  /** @default createConsoleLogger() */
  logger?: Logger;
  /**
   * Counts requests, sends, ended attempts, streams, refusals and store latency, e.g.
   * `createPrometheusMetrics()` from `@tidings/metrics`. @default noopMetrics (nothing is measured)
   */
  metrics?: Metrics;
  /** @default the limits of docs/api.md#limits */
  limits?: LimitsOptions;
  /**
   * How the rate limit headers are written: `'draft'`, the current IETF draft's structured
   * fields; `'draft-7'`, its seventh revision as express-rate-limit writes it; `'legacy'`,
   * `X-RateLimit-Limit/Remaining/Reset` (docs/api.md#rate-limit-headers). @default 'draft'
   */
  rateLimitHeaders?: RateLimitHeaderForm;
  /**
   * How many proxy hops to believe in `X-Forwarded-For`. With 0 the client IP is the socket
   * address; with N, the N-th address from the right of the header. @default 0
   */
  trustProxy?: number;
  /**
   * The public base URL that `connect_url` and `stream_url` are built on, e.g.
   * `https://api.example.com/notify`. @default the origin of each request plus its base path
   */
  publicUrl?: string;
  /** Default notification ttl in seconds. @default 86400 */
  defaultTtlSeconds?: number;
  /** Default connect token lifetime in seconds. @default 3600 */
  connectTokenTtlSeconds?: number;
  /** Longest connect token lifetime a request may ask for, in seconds. @default 86400 */
  maxConnectTokenTtlSeconds?: number;
  /** Interval between heartbeat comments on an open stream. @default 15000 */
  heartbeatMs?: number;
  /** The `retry:` a stream advises, before jitter of up to 50%. @default 2000 */
  retryMs?: number;
  /** A browser with no open stream (and no poll) for this long is disconnected as stale. @default 120000 */
  staleBrowserMs?: number;
  /** Bytes a stream may hold for a slow reader before it is closed (the browser resumes later). @default 1048576 */
  maxStreamBufferBytes?: number;
  /** How often expiry and stale browsers are swept; 0 to sweep only when `sweep()` is called. @default 1000 */
  sweepIntervalMs?: number;
  /**
   * How often every open stream is caught up from the store, writing what its hub did not carry
   * (a hub across processes may drop messages); streams are also caught up on a gap in their
   * sequence and when the hub reports a loss. 0: only then. @default 30000 with a `hub` that
   * reports the losses it sees (Redis), 5000 with another that may lose messages, 0 with a
   * lossless one such as the in-process hub
   */
  catchUpIntervalMs?: number;
  /** How long idempotency results are kept. @default 86400000 */
  idempotencyRetentionMs?: number;
  /** Projects per account. @default 10 */
  maxProjectsPerAccount?: number;
  /** Active keys per project. @default 10 */
  maxActiveKeysPerProject?: number;
  /** Largest accepted request body in bytes. @default 32768 */
  maxBodyBytes?: number;
  /**
   * The features of this instance, each turned on once here (docs/features.md): `inbox()` and
   * `requestLog()` of `@tidings/core`, `webhooks()` and `webPush({ vapidSubject })` of
   * `@tidings/core/node`. A feature brings its routes, its job kinds and what it adds to a send.
   * @default [inbox(), requestLog()]
   */
  features?: readonly Feature[];
  /**
   * How this instance runs the store's durable jobs (docs/jobs.md): the runner's settings, and
   * job kinds of the application's own beside the features'. A runner starts with the instance
   * when there is any kind to run, and `close()` waits for the jobs in flight; every instance over
   * one store may run jobs (claims never hand one job to two). `false`: this instance runs none
   * (a short-lived process such as an operator's command). @default the features' kinds, the runner's defaults
   */
  jobs?: TidingsJobsOptions | false;
  /**
   * The one project of an application that serves itself (docs/transactions.md#one-app): made at
   * the first use if it is not there, with the same ids from every instance and restart. Sends
   * in process (`tidings.notifications.send`) and `createConnectToken` then need no project id and
   * no API key. @default none: each send and token names its project
   */
  project?: string;
  /**
   * The operator's keys that seal, at rest, the secrets Tidings must keep usable (webhook signing
   * secrets, the VAPID private key): each the base64 of 32 random bytes (`tidings secrets
   * generate-key`). The first seals; every one opens, so that a new key can be put first while
   * the old one still opens what it sealed (docs/deploy.md#secrets-at-rest). Keep them out of the
   * database and its backups. @default [] (secrets are stored unsealed)
   */
  secretKeys?: readonly string[];
}

/** The job runner of an instance: {@link JobRunnerOptions} without what the instance already has. */
export interface TidingsJobsOptions extends Omit<JobRunnerOptions, 'store' | 'kinds' | 'clock' | 'logger'> {
  /** Job kinds of the application's own, beside those of the instance's features. @default none */
  kinds?: Record<string, JobHandler>;
}

/** {@link LimitsOptions} with every default applied. */
export type ResolvedLimits = Required<LimitsOptions>;

/** {@link TidingsOptions} with every default applied. */
export interface ResolvedOptions
  extends Required<
    Omit<TidingsOptions, 'limits' | 'publicUrl' | 'limiter' | 'hub' | 'jobs' | 'project' | 'features' | 'secretKeys'>
  > {
  project: string | null;
  limits: ResolvedLimits;
  features: readonly Feature[];
  /** Null: this instance runs no jobs. */
  jobs: TidingsJobsOptions | null;
  publicUrl: string | null;
  limiter: Limiter | null;
  hub: Hub | null;
  /** Seals and opens the secrets kept at rest, under the `secretKeys`. */
  sealer: SecretSealer;
}

/**
 * {@link ResolvedOptions} for a part of the core that uses only some roles of the store: it can
 * be given the whole options, or a store that implements just those roles.
 */
export type ResolvedOptionsWith<Roles> = Omit<ResolvedOptions, 'store'> & { store: Roles };

/** The limits of docs/api.md#limits. */
export const defaultLimits: ResolvedLimits = {
  windowMs: 60_000,
  perKey: 60,
  perProject: 300,
  perAccount: 600,
  invalidKeyPerIp: 120,
  connectPerIp: 60,
  eventsPerIp: 300,
  inboxReadsPerProject: 1200,
};

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`Tidings option ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new TypeError(`Tidings option ${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function rateLimitHeaderForm(value: RateLimitHeaderForm): RateLimitHeaderForm {
  if (!RATE_LIMIT_HEADER_FORMS.includes(value)) {
    throw new TypeError(`Tidings option rateLimitHeaders must be one of ${RATE_LIMIT_HEADER_FORMS.join(', ')}`);
  }
  return value;
}

function jobsOption(jobs: TidingsJobsOptions | false | undefined): TidingsJobsOptions | null {
  if (jobs === false) return null;
  if (jobs === undefined) return {};
  if (typeof jobs !== 'object' || jobs === null) throw new TypeError('Tidings option jobs must be an object or false');
  if (jobs.kinds !== undefined && (typeof jobs.kinds !== 'object' || jobs.kinds === null)) {
    throw new TypeError('Tidings option jobs.kinds must be { [kind]: handler }');
  }
  for (const [kind, handler] of Object.entries(jobs.kinds ?? {})) {
    if (typeof handler !== 'function') throw new TypeError(`Tidings option jobs.kinds.${kind} must be a function`);
  }
  return jobs;
}

/** The features of an instance: each an object made by a feature's function, each name once. */
function featuresOption(features: readonly Feature[] | undefined): readonly Feature[] {
  if (features === undefined) return [inbox(), requestLog()];
  if (!Array.isArray(features)) throw new TypeError('Tidings option features must be an array, e.g. [inbox()]');
  const names = new Set<string>();
  for (const feature of features as readonly unknown[]) {
    const { name, install } = (feature ?? {}) as Partial<Feature>;
    if (typeof name !== 'string' || typeof install !== 'function') {
      throw new TypeError(
        'Tidings option features holds what a feature function makes, e.g. inbox() or webPush({ … })',
      );
    }
    if (names.has(name)) throw new TypeError(`Tidings option features names the ${name} feature twice`);
    names.add(name);
  }
  return features;
}

/** Options an instance once took that a feature takes now: each is refused with where it went. */
const MOVED_TO_FEATURES: Record<string, string> = {
  push: "Web Push is a feature: features: [..., webPush({ vapidSubject }) from '@tidings/core/node']",
  requestLog: 'the request log is a feature: features: [..., requestLog({ … })], or leave it out to turn it off',
  allowHttpWebhooks: "webhooks are a feature: features: [..., webhooks({ allowHttp: true }) from '@tidings/core/node']",
};

/** Applies defaults once, and throws on bad configuration. */
export function resolveOptions(options: TidingsOptions): ResolvedOptions {
  if (!options || typeof options.store !== 'object' || options.store === null) {
    throw new TypeError('Tidings needs a store, e.g. createSqliteStore({ path })');
  }
  for (const [name, instead] of Object.entries(MOVED_TO_FEATURES)) {
    if (name in options) throw new TypeError(`Tidings option ${name} is no more: ${instead}`);
  }
  const limits: ResolvedLimits = { ...defaultLimits };
  for (const [name, value] of Object.entries(options.limits ?? {})) {
    if (!(name in defaultLimits)) throw new TypeError(`Unknown Tidings limit ${name}`);
    if (value === undefined) continue;
    limits[name as keyof ResolvedLimits] = positiveInteger(`limits.${name}`, value);
  }
  let publicUrl: string | null = null;
  if (options.publicUrl !== undefined) {
    const parsed = new URL(options.publicUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new TypeError('Tidings option publicUrl must be an http(s) URL');
    }
    publicUrl = parsed.href.replace(/\/+$/, '');
  }
  return {
    store: options.store,
    limiter: options.limiter ?? null,
    hub: options.hub ?? null,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? createConsoleLogger(),
    metrics: options.metrics ?? noopMetrics,
    limits,
    rateLimitHeaders: rateLimitHeaderForm(options.rateLimitHeaders ?? 'draft'),
    trustProxy: nonNegativeInteger('trustProxy', options.trustProxy ?? 0),
    publicUrl,
    defaultTtlSeconds: positiveInteger('defaultTtlSeconds', options.defaultTtlSeconds ?? 86_400),
    connectTokenTtlSeconds: positiveInteger('connectTokenTtlSeconds', options.connectTokenTtlSeconds ?? 3_600),
    maxConnectTokenTtlSeconds: positiveInteger(
      'maxConnectTokenTtlSeconds',
      options.maxConnectTokenTtlSeconds ?? 86_400,
    ),
    heartbeatMs: positiveInteger('heartbeatMs', options.heartbeatMs ?? 15_000),
    retryMs: positiveInteger('retryMs', options.retryMs ?? 2_000),
    staleBrowserMs: positiveInteger('staleBrowserMs', options.staleBrowserMs ?? 120_000),
    maxStreamBufferBytes: positiveInteger('maxStreamBufferBytes', options.maxStreamBufferBytes ?? 1_048_576),
    sweepIntervalMs: nonNegativeInteger('sweepIntervalMs', options.sweepIntervalMs ?? 1_000),
    catchUpIntervalMs: nonNegativeInteger(
      'catchUpIntervalMs',
      options.catchUpIntervalMs ?? defaultCatchUpIntervalMs(options.hub),
    ),
    idempotencyRetentionMs: positiveInteger('idempotencyRetentionMs', options.idempotencyRetentionMs ?? 86_400_000),
    maxProjectsPerAccount: positiveInteger('maxProjectsPerAccount', options.maxProjectsPerAccount ?? 10),
    maxActiveKeysPerProject: positiveInteger('maxActiveKeysPerProject', options.maxActiveKeysPerProject ?? 10),
    maxBodyBytes: positiveInteger('maxBodyBytes', options.maxBodyBytes ?? 32_768),
    jobs: jobsOption(options.jobs),
    features: featuresOption(options.features),
    project: options.project === undefined ? null : checkAppProjectName(options.project),
    sealer: sealerOption(options.secretKeys),
  };
}

/** The sealer of the `secretKeys` option; a key in a wrong form throws here. */
function sealerOption(keys: readonly string[] | undefined): SecretSealer {
  if (keys === undefined) return unsealedSecrets;
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string')) {
    throw new TypeError('Tidings option secretKeys must be an array of keys (base64 strings)');
  }
  try {
    return createSecretSealer(parseSecretKeys(keys, 'Tidings option secretKeys'));
  } catch (error) {
    throw new TypeError((error as Error).message);
  }
}

/** The catch-up on a timer: none for a lossless hub, rare for one that reports its losses. */
function defaultCatchUpIntervalMs(hub: Hub | undefined): number {
  if (hub === undefined || hub.lossless) return 0;
  return hub.lossesReported ? 30_000 : 5_000;
}
