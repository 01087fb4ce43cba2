import type { AttemptReason, EndedAttemptStatus, KeyMode, Metrics, StoreOperationOutcome } from '@tidings/core';
import type { WebhookAttemptOutcome } from '@tidings/core/store';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Options of {@link createPrometheusMetrics}. */
export interface PrometheusMetricsOptions {
  /**
   * Where the metrics are registered: pass your own to expose Tidings' beside yours.
   * @default a new Registry
   */
  registry?: Registry;
  /** Put before every Tidings metric's name. @default 'tidings_' */
  prefix?: string;
  /**
   * Also collect prom-client's default metrics (event-loop lag, heap, CPU, handles) on the
   * registry. Turn it off when your registry already collects them. @default true
   */
  defaultMetrics?: boolean;
  /** Buckets of the request and store latency histograms, in seconds. @default see {@link latencyBuckets} */
  buckets?: number[];
}

/** {@link Metrics} backed by prom-client, and the registry to expose. */
export interface PrometheusMetrics extends Metrics {
  /** The registry holding the metrics: serve `await registry.metrics()` as `registry.contentType`. */
  readonly registry: Registry;
}

/** From 0.5 ms (a cached read) to 2.5 s (a store under a lock): the latencies an operator tells apart. */
export const latencyBuckets: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

/**
 * Creates the Prometheus metrics of a Tidings instance: pass the result as the `metrics` option
 * of `createTidings` and serve its `registry` (see `createMetricsHandler`). docs/metrics.md
 * lists every metric and its labels.
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const registry = options.registry ?? new Registry();
  const prefix = options.prefix ?? 'tidings_';
  const buckets = [...(options.buckets ?? latencyBuckets)];
  const registers = [registry];
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: `${prefix}http_requests_total`,
    help: 'Requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const requestDuration = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time to answer a request (to the head of an event stream), by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets,
    registers,
  });
  const notifications = new Counter({
    name: `${prefix}notifications_sent_total`,
    help: 'Notifications recorded (idempotent replays excluded), by key mode.',
    labelNames: ['mode'] as const,
    registers,
  });
  const attemptsCreated = new Counter({
    name: `${prefix}attempts_created_total`,
    help: 'Delivery attempts recorded, one per connected browser of each notification, by key mode.',
    labelNames: ['mode'] as const,
    registers,
  });
  const attemptsEnded = new Counter({
    name: `${prefix}attempts_ended_total`,
    help: 'Delivery attempts that became final, by final status and reason.',
    labelNames: ['status', 'reason'] as const,
    registers,
  });
  const openStreams = new Gauge({
    name: `${prefix}open_streams`,
    help: 'Event streams open on this instance.',
    registers,
  });
  const refusals = new Counter({
    name: `${prefix}limiter_refusals_total`,
    help: 'Requests refused with 429, by the narrowest full scope.',
    labelNames: ['scope'] as const,
    registers,
  });
  const storeDuration = new Histogram({
    name: `${prefix}store_operation_duration_seconds`,
    help: 'Time of each store operation, by operation and outcome.',
    labelNames: ['operation', 'outcome'] as const,
    buckets,
    registers,
  });

  const webhookRequests = new Histogram({
    name: `${prefix}webhook_request_duration_seconds`,
    help: 'Requests of webhook messages to their endpoints, by outcome, and their duration.',
    labelNames: ['outcome'] as const,
    buckets,
    registers,
  });

  const requestLogDropped = new Counter({
    name: `${prefix}request_log_dropped_total`,
    help: 'Entries of the request log dropped: its buffer was full, or their write failed.',
    registers,
  });

  return {
    registry,
    requestHandled(method: string, route: string, status: number, durationMs: number) {
      requests.inc({ method, route, status: String(status) });
      requestDuration.observe({ method, route }, durationMs / 1000);
    },
    notificationSent(mode: KeyMode, attempts: number) {
      notifications.inc({ mode });
      attemptsCreated.inc({ mode }, attempts);
    },
    attemptsEnded(status: EndedAttemptStatus, reason: AttemptReason | null, count: number) {
      attemptsEnded.inc({ status, reason: reason ?? 'none' }, count);
    },
    streamOpened() {
      openStreams.inc();
    },
    streamClosed() {
      openStreams.dec();
    },
    limiterRefused(scope: string) {
      refusals.inc({ scope });
    },
    storeOperation(operation: string, durationMs: number, outcome: StoreOperationOutcome) {
      storeDuration.observe({ operation, outcome }, durationMs / 1000);
    },
    webhookRequest(outcome: WebhookAttemptOutcome, durationMs: number) {
      webhookRequests.observe({ outcome }, durationMs / 1000);
    },
    requestLogDropped(count: number) {
      requestLogDropped.inc(count);
    },
  };
}
