export { createMetricsHandler } from './metrics-handler.js';
export {
  createPrometheusMetrics,
  latencyBuckets,
  type PrometheusMetrics,
  type PrometheusMetricsOptions,
} from './prometheus-metrics.js';
