import type { AttemptReason, KeyMode } from './records.js';
import type { WebhookAttemptOutcome } from './store.js';

/** A final attempt status as the metrics count it: `accepted` is final at once in test mode. */
export type EndedAttemptStatus = 'accepted' | 'delivered' | 'expired' | 'failed';

/** The outcome of one store operation: whether its promise resolved or rejected. */
export type StoreOperationOutcome = 'ok' | 'error';

/**
 * Where Tidings reports what it does, for an operator's dashboards. Every method is called on
 * the request path, so an implementation must be synchronous and cheap (counters in memory;
 * nothing is sent from here). `@tidings/metrics` implements it with prom-client; without one,
 * {@link noopMetrics} drops everything and the core skips the timing around it.
 */
export interface Metrics {
  /**
   * One answered request. `route` is the route's pattern (`/v1/notifications/{id}`), never the
   * path that was asked for, or `unmatched`; for an event stream the time is until its head.
   */
  requestHandled(method: string, route: string, status: number, durationMs: number): void;
  /** A notification recorded (not a replay), with its attempts: one per connected browser. */
  notificationSent(mode: KeyMode, attempts: number): void;
  /** `count` attempts became final with this status (and reason, or null). */
  attemptsEnded(status: EndedAttemptStatus, reason: AttemptReason | null, count: number): void;
  /** An event stream opened on this instance. */
  streamOpened(): void;
  /** An event stream on this instance ended, for whatever reason. */
  streamClosed(): void;
  /** A request refused by the limiter, named by the narrowest full scope (`key`, `ip_connect`…). */
  limiterRefused(scope: string): void;
  /** One store operation (the method's name) and how long its promise took. */
  storeOperation(operation: string, durationMs: number, outcome: StoreOperationOutcome): void;
  /** One request of a webhook message, by how it ended, and how long it took. */
  webhookRequest(outcome: WebhookAttemptOutcome, durationMs: number): void;
  /** `count` entries of the request log dropped: its buffer was full, or their write failed. */
  requestLogDropped(count: number): void;
}

/** Drops everything: the default, with which the core does not time anything either. */
export const noopMetrics: Metrics = Object.freeze({
  requestHandled() {},
  notificationSent() {},
  attemptsEnded() {},
  streamOpened() {},
  streamClosed() {},
  limiterRefused() {},
  storeOperation() {},
  webhookRequest() {},
  requestLogDropped() {},
});
