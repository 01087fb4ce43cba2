import { readFile } from 'node:fs/promises';
import { parser } from '@prometheus-io/lezer-promql';
import { createPrometheusMetrics } from '@tidings/metrics';
import { describe, expect, it } from 'vitest';
import { parseExposition } from '../support/exposition.js';

/** Labels Prometheus adds to every series of a scrape target. */
const TARGET_LABELS = ['instance', 'job'];

/** Grafana's variables, replaced by values PromQL can parse. */
function withoutVariables(expr: string): string {
  return expr.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*');
}

/** Each series the expression selects: its metric name and the labels it matches on. */
function selectors(expr: string): { metric: string; labels: string[] }[] {
  const tree = parser.parse(expr);
  const found: { metric: string; labels: string[] }[] = [];
  tree.iterate({
    enter(node) {
      if (node.type.isError) throw new Error(`not PromQL at ${node.from}: ${expr}`);
      if (node.name !== 'VectorSelector') return;
      const selector = node.node;
      const identifier = selector.getChild('Identifier');
      const labels: string[] = [];
      selector.toTree().iterate({
        enter(inner) {
          if (inner.name === 'LabelName') labels.push(expr.slice(node.from + inner.from, node.from + inner.to));
        },
      });
      found.push({ metric: identifier ? expr.slice(identifier.from, identifier.to) : '', labels });
    },
  });
  return found;
}

/** The series names the server exposes, with the label names of each, after one call of every port method. */
async function exposedSeries(): Promise<Map<string, Set<string>>> {
  const metrics = createPrometheusMetrics();
  metrics.requestHandled('GET', '/v1/notifications/{id}', 200, 1);
  metrics.notificationSent('live', 1);
  metrics.attemptsEnded('failed', 'browser_stale', 1);
  metrics.streamOpened();
  metrics.limiterRefused('key');
  metrics.storeOperation('getNotification', 1, 'ok');
  metrics.webhookRequest('succeeded', 1);
  metrics.requestLogDropped(1);
  const scrape = parseExposition(await metrics.registry.metrics());
  const series = new Map<string, Set<string>>();
  for (const sample of scrape.samples) {
    const labels = series.get(sample.name) ?? new Set(TARGET_LABELS);
    for (const label of Object.keys(sample.labels)) labels.add(label);
    series.set(sample.name, labels);
  }
  return series;
}

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

describe('docs/grafana-dashboard.json', () => {
  it('queries only metrics, and labels of them, that the server exposes', async () => {
    const dashboard = JSON.parse(await readFile(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8'));
    const series = await exposedSeries();
    const panels = (dashboard.panels as Panel[]).filter((panel) => panel.type !== 'row');
    const exprs = panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    const variables = (dashboard.templating.list as { query?: { query: string } }[])
      .map((variable) => /^label_values\((\w+), *(\w+)\)$/.exec(variable.query?.query ?? ''))
      .filter((match) => match !== null);
    expect(panels.length).toBeGreaterThanOrEqual(10);
    expect(panels.every((panel) => (panel.targets ?? []).length > 0)).toBe(true);

    const named = new Set<string>();
    for (const expr of exprs) {
      const found = selectors(withoutVariables(expr));
      expect(found.length, expr).toBeGreaterThan(0);
      for (const { metric, labels } of found) {
        expect([...series.keys()], expr).toContain(metric);
        for (const label of labels) expect([...series.get(metric)!], `${label} in ${expr}`).toContain(label);
        named.add(metric.replace(/_(bucket|count|sum)$/, ''));
      }
    }
    for (const [, metric, label] of variables) expect([...(series.get(metric!) ?? [])]).toContain(label);

    // A panel for every metric the server reports about itself.
    const own = [...series.keys()].filter((name) => name.startsWith('tidings_'));
    for (const name of own) expect([...named], name).toContain(name.replace(/_(bucket|count|sum)$/, ''));
    expect([...named]).toEqual(expect.arrayContaining(['nodejs_eventloop_lag_p99_seconds']));
  });
});
