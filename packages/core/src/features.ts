import type { DeliveryHooks } from './delivery/hooks.js';
import { deliveryRoutes } from './delivery/routes.js';
import type { StreamRegistry } from './delivery/stream/stream-registry.js';
import { INBOX_ROUTES } from './inbox/routes.js';
import { openApiRoute } from './openapi/route.js';
import type { ResolvedOptions } from './options.js';
import type { RequestCaller, RouteContext } from './pipeline/context.js';
import type { RouteDeclaration } from './pipeline/route.js';
import type { Hub } from './ports/hub.js';
import type { Limiter } from './ports/limiter.js';
import { pushRoutes } from './push/routes.js';
import type { JobHandler } from './shared/job-runner.js';

/**
 * A part of Tidings an instance is given in `createTidings({ features })`, made by the feature's
 * own function (`inbox()`, `requestLog()`, and `webhooks()` and `webPush()` of
 * `@tidings/core/node`). Each lives in a folder of its own and plugs in through this one seam:
 * `install` is called once, as the instance is made, and returns what the feature adds to it.
 */
export interface Feature {
  /** The feature's name; an instance is given each feature once. */
  readonly name: string;
  install(host: FeatureHost): FeatureParts;
}

/** What an instance offers a feature as it installs it. */
export interface FeatureHost {
  /** The instance's options, resolved (its store, clock, logger, metrics…). */
  readonly options: ResolvedOptions;
  readonly hub: Hub;
  readonly limiter: Limiter;
  readonly streams: StreamRegistry;
}

export type { ReceiptsApplied, SendBeingRecorded } from './delivery/hooks.js';

/** A request of a known key, answered: what the request log records. */
export interface AnsweredRequest {
  ctx: RouteContext;
  caller: RequestCaller;
  /** The path after the base path. */
  pathname: string;
  response: Response;
  /** `performance.now()` when the request arrived. */
  started: number;
}

/** What a feature adds to an instance. Every part is optional. */
export interface FeatureParts {
  /** The routes it answers, each declared once with its OpenAPI operation. */
  routes?: readonly RouteDeclaration[];
  /** The job kinds it runs, by kind (docs/jobs.md): an instance runs them with its job runner. */
  jobs?: Record<string, JobHandler>;
  /**
   * The jobs a live send adds, computed from what the send created and enqueued in its own
   * transaction; null for none. Called before the send is recorded.
   */
  sendJobs?: DeliveryHooks['sendJobs'][number];
  /** What a browser's receipts do beyond its attempts, before their 202. */
  afterReceipts?: DeliveryHooks['afterReceipts'][number];
  /** Time-driven work, on every sweep; `purge` once a minute, for deleting what is past its retention. */
  sweep?(input: { now: number; purge: boolean }): Promise<void>;
  /**
   * Browsers this feature reaches without a stream or poll, kept from being reaped as stale while
   * seen after the time this returns (Web Push: its retention).
   */
  keepsBrowsersSeenAfter?: DeliveryHooks['keepsBrowsersSeenAfter'][number];
  /** The key a browser subscribes to Web Push with, for the connect answers. */
  vapidPublicKey?: NonNullable<DeliveryHooks['vapidPublicKey']>;
  /** Told of every answered request of a known key, after its answer is made: never throws. */
  answered?(request: AnsweredRequest): void;
  /** Settings the operations report (`admin.settings`) and follow. */
  settings?: FeatureSettings;
  /** Ends what the feature runs; the instance's `close()` waits for it. */
  close?(): Promise<void>;
}

/** What features tell the operations of their settings. */
export interface FeatureSettings {
  /** The request log's, when it is on. */
  requestLog?: { enabled: boolean; retentionDays: number };
  /** Web Push's, when it is on. */
  push?: { vapidSubject: string };
  /** The webhooks', when they are sent: whether endpoints at `http:` URLs are accepted. */
  webhooks?: { allowHttp: boolean };
}

/**
 * What a feature's part of the API answers when the feature is not given: Web Push's routes
 * refuse a subscription with PUSH_NOT_CONFIGURED, so that a page learns that this server sends
 * none. Every other feature's routes are then not answered (404).
 */
const WHEN_NOT_GIVEN: Record<string, () => FeatureParts> = {
  push: () => ({ routes: pushRoutes(null) }),
};

/** The features of an instance, installed, and what they add gathered by kind. */
export interface InstalledFeatures {
  hooks: DeliveryHooks;
  /** Their routes, and those the features not given still answer. */
  routes: RouteDeclaration[];
  /** Their job kinds. */
  jobs: Record<string, JobHandler>;
  sweeps: NonNullable<FeatureParts['sweep']>[];
  answered: NonNullable<FeatureParts['answered']>[];
  settings: FeatureSettings;
  /** Ends what each runs, in the order they were given. */
  close(): Promise<void>;
}

/** Installs each feature once, in the order given, and gathers what they add. */
export function installFeatures(features: readonly Feature[], host: FeatureHost): InstalledFeatures {
  const given = new Set(features.map((feature) => feature.name));
  const parts = [
    ...features.map((feature) => feature.install(host)),
    ...Object.entries(WHEN_NOT_GIVEN)
      .filter(([name]) => !given.has(name))
      .map(([, parts]) => parts()),
  ];
  const jobs: Record<string, JobHandler> = {};
  for (const part of parts) {
    for (const [kind, handler] of Object.entries(part.jobs ?? {})) {
      if (kind in jobs) throw new TypeError(`Two features of this instance run the job kind ${kind}`);
      jobs[kind] = handler;
    }
  }
  const vapidPublicKeys = parts.flatMap((part) => (part.vapidPublicKey ? [part.vapidPublicKey] : []));
  const pick = <Key extends keyof FeatureParts>(key: Key) =>
    parts.flatMap((part) => (part[key] === undefined ? [] : [part[key]!])) as NonNullable<FeatureParts[Key]>[];
  return {
    hooks: {
      sendJobs: pick('sendJobs'),
      afterReceipts: pick('afterReceipts'),
      keepsBrowsersSeenAfter: pick('keepsBrowsersSeenAfter'),
      vapidPublicKey: vapidPublicKeys[0] ?? null,
    },
    routes: parts.flatMap((part) => part.routes ?? []),
    jobs,
    sweeps: pick('sweep'),
    answered: pick('answered'),
    settings: Object.assign({}, ...parts.map((part) => part.settings ?? {})) as FeatureSettings,
    async close() {
      for (const part of parts) await part.close?.();
    },
  };
}

/**
 * Every route of the API, in the order of its reference: the contract's, then each feature's, then
 * the document's own. The OpenAPI document describes them all; an instance answers the contract's,
 * the document's and those of the features it is given.
 */
export function apiRoutes(settings: { maxConnectTokenTtlSeconds: number }): RouteDeclaration[] {
  return [...deliveryRoutes(settings), ...pushRoutes(null), ...INBOX_ROUTES, openApiRoute(settings)];
}
