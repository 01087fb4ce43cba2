export * from './metrics-handler.js';
export * from './prometheus-metrics.js';
