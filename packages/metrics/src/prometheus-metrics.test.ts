import { createTidings, silentLogger } from '@tidings/core';
import { createSqliteStore } from '@tidings/store-sqlite';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseExposition, total } from '../../../test/support/exposition.js';
import { createMetricsHandler } from './metrics-handler.js';
import { createPrometheusMetrics } from './prometheus-metrics.js';

describe('createPrometheusMetrics', () => {
  it('exposes what an instance did, labelled by route pattern, in the text format', async () => {
    const metrics = createPrometheusMetrics();
    const store = createSqliteStore({ path: ':memory:' });
    const tidings = createTidings({ store, metrics, logger: silentLogger, sweepIntervalMs: 0 });
    try {
      const headers = { Authorization: 'Bearer sk_live_00000000000000000000000000000000' };
      for (let i = 0; i < 3; i++) {
        const response = await tidings.fetch(new Request('http://t.test/v1/notifications/ntf_1', { headers }));
        expect(response.status).toBe(401);
      }
      const handler = createMetricsHandler(metrics.registry);
      const response = await handler(new Request('http://metrics.test/metrics'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(metrics.registry.contentType);
      const scrape = parseExposition(await response.text());
      expect(total(scrape, 'tidings_http_requests_total', { route: '/v1/notifications/{id}', status: '401' })).toBe(3);
      expect(total(scrape, 'tidings_http_request_duration_seconds', { method: 'GET' })).toBe(3);
      expect(total(scrape, 'tidings_store_operation_duration_seconds', { operation: 'findApiKeyByHash' })).toBe(3);
      expect(total(scrape, 'tidings_open_streams')).toBe(0);
      expect(scrape.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
      expect((await handler(new Request('http://metrics.test/other'))).status).toBe(404);
      expect((await handler(new Request('http://metrics.test/metrics', { method: 'POST' }))).status).toBe(405);
    } finally {
      await tidings.close();
      await store.close();
    }
  });

  it('registers on a registry of the embedder, under its prefix, beside its metrics', async () => {
    const registry = new Registry();
    const metrics = createPrometheusMetrics({ registry, prefix: 'notify_', defaultMetrics: false });
    metrics.limiterRefused('key');
    metrics.attemptsEnded('failed', 'browser_stale', 4);
    metrics.webhookRequest('timeout', 15_000);
    metrics.webhookRequest('succeeded', 20);
    const scrape = parseExposition(await registry.metrics());
    expect(total(scrape, 'notify_webhook_request_duration_seconds', { outcome: 'timeout' })).toBe(1);
    expect(total(scrape, 'notify_webhook_request_duration_seconds', { outcome: 'succeeded' })).toBe(1);
    expect(total(scrape, 'notify_limiter_refusals_total', { scope: 'key' })).toBe(1);
    expect(total(scrape, 'notify_attempts_ended_total', { status: 'failed', reason: 'browser_stale' })).toBe(4);
    expect(scrape.types.has('nodejs_eventloop_lag_seconds')).toBe(false);
    // Two instances never share a default registry, so they never clash.
    expect(createPrometheusMetrics().registry).not.toBe(createPrometheusMetrics().registry);
  });
});
