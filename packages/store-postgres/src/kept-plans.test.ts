import { hashSecret, newId, type Store } from '@tidings/core';
import { seedBrowser, seedProject, send, T0 } from '@tidings/core/testing';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KEPT_PLAN_CHECK_MS } from './db.js';
import { createPostgresStore } from './postgres-store.js';
import { dropSchema, explainPlans, randomSchema, testDatabaseUrl } from './test-support/test-database.js';

/**
 * The statements of every request that PostgreSQL would otherwise plan at each run: the key
 * lookup and the recording of a send, each in a version for one key or browser that keeps its
 * plan, and a version for a list; and the recording of a group of sends, which keeps its plan.
 */
describe('PostgreSQL store: plans kept on the path of every send', () => {
  let schema: string;
  let pool: pg.Pool;
  let store: Store;

  beforeEach(async () => {
    schema = randomSchema();
    // One connection: the test's own queries see the store's prepared statements.
    pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 1 });
    store = await createPostgresStore({ pool, schema });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await store.close();
    await pool.end();
    await dropSchema(schema);
  });

  /** The store's prepared statements of this name on the one connection: none, or one. */
  async function prepared(name: string) {
    const { rows } = await pool.query<{ generic_plans: string }>(
      'SELECT generic_plans FROM pg_prepared_statements WHERE name LIKE $1',
      [`%\\_${name}`],
    );
    return rows;
  }

  /** Generic plans PostgreSQL made for the store's statement of this name, on the one connection. */
  async function genericPlans(name: string): Promise<number> {
    const rows = await prepared(name);
    expect(rows).toHaveLength(1);
    return Number(rows[0]!.generic_plans);
  }

  async function keys(count: number) {
    const projectId = (await seedProject(store)).id;
    const values: string[] = [];
    for (let i = 0; i < count; i++) {
      const value = `sk_live_${String.fromCharCode(65 + i).repeat(32)}`;
      const key = await store.createApiKey({
        id: newId('key'),
        projectId,
        hash: hashSecret(value),
        prefix: value.slice(0, 12),
        mode: 'live',
        name: `key ${i}`,
        now: T0,
        maxActive: 10,
      });
      if (key.kind !== 'created') throw new Error(key.kind);
      values.push(value);
    }
    return values;
  }

  it('finds each key of lookups made in one turn, and none for an unknown hash', async () => {
    const values = await keys(3);
    const found = await Promise.all([
      ...values.map((value) => store.findApiKeyByHash(hashSecret(value))),
      store.findApiKeyByHash(hashSecret(values[0]!)),
      store.findApiKeyByHash(hashSecret(`sk_live_${'Z'.repeat(32)}`)),
    ]);
    expect(found.map((entry) => entry?.key.name ?? null)).toEqual(['key 0', 'key 1', 'key 2', 'key 0', null]);
  });

  it('keeps the plan of the lookup of one key instead of planning it at every request', async () => {
    const [value] = await keys(1);
    for (let i = 0; i < 8; i++) {
      expect((await store.findApiKeyByHash(hashSecret(value!)))?.key.name).toBe('key 0');
    }
    expect(await store.findApiKeyByHash(hashSecret(`sk_live_${'Y'.repeat(32)}`))).toBeNull();
    // PostgreSQL plans a prepared statement for its first five runs, then keeps a generic plan
    // when it costs no more than those; a statement planned at every run counts no generic plan.
    expect(await genericPlans('select_key_by_hash')).toBeGreaterThanOrEqual(3);
  });

  it('records sends to one browser with a kept plan, and to several with the list', async () => {
    const projectId = (await seedProject(store)).id;
    const alone = await seedBrowser(store, projectId, 'alone');
    const [first, second] = [await seedBrowser(store, projectId, 'pair'), await seedBrowser(store, projectId, 'pair')];
    const sendTo = (recipient: string, index: number) =>
      send(store, { projectId, recipient, now: T0 + index, title: `n${index}` });
    for (let i = 0; i < 8; i++) {
      const result = await sendTo('alone', i);
      expect(result.kind === 'created' && result.created.attempts.map((a) => [a.browserId, a.seq])).toEqual([
        [alone.id, i + 1],
      ]);
    }
    expect(await genericPlans('send_record_one')).toBeGreaterThanOrEqual(3);
    const pair = await sendTo('pair', 8);
    expect(pair.kind === 'created' && pair.created.attempts.map((a) => [a.browserId, a.seq]).sort()).toEqual(
      [
        [first.id, 1],
        [second.id, 1],
      ].sort(),
    );
    const deliveries = await store.listDeliveries({ browserId: alone.id, now: T0 });
    expect(deliveries.map((delivery) => [delivery.seq, delivery.title])).toEqual(
      Array.from({ length: 8 }, (_, i) => [i + 1, `n${i}`]),
    );
    // A browser gone since the read of the recipient's browsers gets no attempt, and the send
    // records nothing.
    await store.disconnectBrowser({ browserId: alone.id, reason: 'browser_disconnected', now: T0 + 100 });
    expect((await sendTo('alone', 9)).kind).toBe('no-connected-browser');
    expect(await store.getUsage({ projectId, fromDay: '2026-01-01', toDay: '2026-01-01' })).toEqual([
      { day: '2026-01-01', notifications: 9, attempts: 10 },
    ]);
  });

  it('plans a group at every run while the browsers are few, and keeps its plan once they are many', async () => {
    const projectId = (await seedProject(store)).id;
    const one = await seedBrowser(store, projectId, 'one');
    const two = [await seedBrowser(store, projectId, 'two'), await seedBrowser(store, projectId, 'two')];
    let sent = 0;
    // Made in one turn, the three are recorded as one group (or one alone and a group of two).
    // The last has a key, so its group is a transaction: the read of the statistics goes on
    // that transaction's connection, the pool's only one.
    async function round() {
      const results = await Promise.all(
        ['one', 'two', 'one'].map((recipient, i) =>
          send(store, {
            projectId,
            recipient,
            now: T0 + sent,
            title: `n${sent++}`,
            idempotencyKey: i === 2 ? `key-${sent}` : null,
          }),
        ),
      );
      const r = sent / 3 - 1;
      expect(
        results.map((result) =>
          result.kind === 'created' ? result.created.attempts.map((a) => [a.browserId, a.seq]).sort() : result.kind,
        ),
      ).toEqual([[[one.id, 2 * r + 1]], two.map((browser) => [browser.id, r + 1]).sort(), [[one.id, 2 * r + 2]]]);
    }

    // A plan kept now would be made for a table of three rows: a scan of the whole table.
    for (let i = 0; i < 8; i++) await round();
    expect(await prepared('group_send')).toHaveLength(0);

    // 20,000 more browsers, each of a recipient of its own, and the statistics that count them.
    await pool.query(
      `WITH r AS (
         INSERT INTO "${schema}".recipients (project_id, recipient, created_at)
         SELECT $1, 'filler-' || i, 0 FROM generate_series(1, 20000) AS i RETURNING recipient
       )
       INSERT INTO "${schema}".browsers (id, project_id, recipient, secret_hash, connected, created_at, last_seen_at)
       SELECT 'brw_' || recipient, $1, recipient, 'x', true, 0, 0 FROM r`,
      [projectId],
    );
    await pool.query(`ANALYZE "${schema}".browsers`);
    // Read again after a minute.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + KEPT_PLAN_CHECK_MS);
    const client = await pool.connect();
    const plans: string[] = [];
    try {
      await explainPlans(client, plans);
    } finally {
      client.release();
    }
    for (let i = 0; i < 8; i++) await round();
    expect(await prepared('group_send')).toHaveLength(1);
    expect(await genericPlans('group_send')).toBeGreaterThanOrEqual(1);
    const kept = plans.filter((plan) => plan.includes('AS i(ord, position, attempt_id)')).at(-1);
    expect(kept).toMatch(/Index Scan using browsers_connected_by_recipient on browsers b\b/);
    expect(kept).not.toMatch(/Seq Scan on browsers/);

    const deliveries = await store.listDeliveries({ browserId: one.id, now: T0 });
    expect(deliveries.map((delivery) => delivery.title)).toEqual(
      Array.from({ length: sent / 3 }, (_, r) => [`n${3 * r}`, `n${3 * r + 2}`]).flat(),
    );
    expect(await store.getUsage({ projectId, fromDay: '2026-01-01', toDay: '2026-01-01' })).toEqual([
      { day: '2026-01-01', notifications: sent, attempts: (4 * sent) / 3 },
    ]);
  });
});
