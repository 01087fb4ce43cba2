import type { Store } from '@tidings/core';
import { DAY_MS, seedBrowser, seedProject, send, T0 } from '@tidings/core/testing';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quoteIdentifier } from './db.js';
import { createPostgresStore } from './postgres-store.js';
import {
  dropSchema,
  randomSchema,
  testDatabaseUrl,
  type WatchedQuery,
  watchQueries,
} from './test-support/test-database.js';

/** A node of a plan, from EXPLAIN (ANALYZE, FORMAT JSON). */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The catch-up's read of pending attempts, as PostgreSQL runs it. */
describe('PostgreSQL store: pending deliveries of many browsers', () => {
  let schema: string;
  let pool: pg.Pool;
  let store: Store;
  let queries: WatchedQuery[];

  beforeEach(async () => {
    schema = randomSchema();
    queries = [];
    pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 4 });
    watchQueries(pool, (query) => queries.push(query));
    store = await createPostgresStore({ pool, schema });
  });
  afterEach(async () => {
    await store.close();
    await pool.end();
    await dropSchema(schema);
  });

  it('reads the rows of the browsers asked for, not every pending attempt, even when the statistics predate a large backlog', async () => {
    const project = await seedProject(store);
    const reader = await seedBrowser(store, project.id, 'user-1');
    const other = await seedBrowser(store, project.id, 'user-2');
    for (let i = 0; i < 2; i++) await send(store, { projectId: project.id, recipient: 'user-1', now: T0 + i });
    await send(store, { projectId: project.id, recipient: 'user-2', now: T0 });

    // Statistics taken while little was pending, as in a young deployment; then a backlog of
    // pending attempts of another browser that autovacuum has not analyzed yet.
    const t = (table: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
    await pool.query(`ANALYZE ${t('attempts')}; ANALYZE ${t('notifications')}`);
    await pool.query(`ALTER TABLE ${t('attempts')} SET (autovacuum_enabled = false)`);
    await pool.query(`ALTER TABLE ${t('notifications')} SET (autovacuum_enabled = false)`);
    const addBacklog = async (from: number, to: number) => {
      await pool.query(
        `INSERT INTO ${t('notifications')} (id, project_id, mode, recipient, title, ttl, created_at, expires_at)
         SELECT 'ntf_backlog_' || i, $1, 'live', 'user-2', 'Backlog ' || i, 3600, $2, $3
           FROM generate_series($4::int, $5::int) AS i`,
        [project.id, T0, T0 + DAY_MS, from, to],
      );
      await pool.query(
        `INSERT INTO ${t('attempts')} (id, notification_id, position, browser_id, seq, status, final, accepted_at, expires_at)
         SELECT 'att_backlog_' || i, 'ntf_backlog_' || i, 1, $1, 1 + i, 'accepted', false, $2, $3
           FROM generate_series($4::int, $5::int) AS i`,
        [other.id, T0, T0 + DAY_MS, from, to],
      );
    };

    /** Rows the read of a catch-up (250 browsers, the reader's and others without attempts) takes from tables and indexes. */
    const rowsScanned = async () => {
      const browserIds = [reader.id, ...Array.from({ length: 249 }, (_, i) => `brw_elsewhere_${i}`)];
      queries = [];
      const pending = await store.listPendingDeliveries({
        browserIds,
        now: T0 + 10,
        afterSeqs: browserIds.map(() => 0),
      });
      expect(pending.deliveries.map((delivery) => [delivery.browserId, delivery.seq])).toEqual([
        [reader.id, 1],
        [reader.id, 2],
      ]);
      const read = queries.find((query) => query.text?.includes('"attemptId"'));
      expect(read?.values).toBeDefined();
      const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
        text: `EXPLAIN (ANALYZE, FORMAT JSON) ${read!.text}`,
        values: read!.values,
      });
      const plan = rows[0]!['QUERY PLAN'][0].Plan;
      const scans = nodesOf(plan).filter((node) => node['Relation Name'] !== undefined);
      expect(scans.filter((node) => node['Node Type'] === 'Seq Scan').map((node) => node['Relation Name'])).toEqual([]);
      return scans.reduce((sum, node) => sum + node['Actual Rows'] * node['Actual Loops'], 0);
    };

    await addBacklog(1, 10_000);
    expect(await rowsScanned()).toBeLessThanOrEqual(4);
    await addBacklog(10_001, 30_000);
    // The reader's two attempts and their two notifications, whatever the backlog of others.
    expect(await rowsScanned()).toBeLessThanOrEqual(4);
  });
});
