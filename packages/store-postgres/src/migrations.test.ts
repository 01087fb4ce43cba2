import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quoteIdentifier } from './db.js';
import { migrate, migrations } from './migrations.js';
import { createPostgresStore } from './postgres-store.js';
import { dropSchema, randomSchema, testDatabaseUrl } from './test-support/test-database.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const NTF = 'ntf_01jdv5cz00k2a7d3m9qx4w8t6e';

/** Each test migrates a schema of its own, dropped after it. */
let schema: string;
let pool: pg.Pool;
beforeEach(() => {
  schema = randomSchema();
  pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 2 });
});
afterEach(async () => {
  await pool.end();
  await dropSchema(schema);
});

describe('migration 7: notifications record where they came from', () => {
  it('keeps the notifications recorded before, reading their key, request id and Idempotency-Key as null', async () => {
    await migrate(pool, schema, migrations.slice(0, 6));
    const s = quoteIdentifier(schema);
    await pool.query(`
      INSERT INTO ${s}.accounts (id, email, verified, created_at) VALUES ('acct_1', 'a@example.com', true, ${T0});
      INSERT INTO ${s}.projects (id, account_id, name, created_at) VALUES ('proj_1', 'acct_1', 'P', ${T0});
      INSERT INTO ${s}.notifications (id, project_id, mode, recipient, title, data, ttl, created_at, expires_at)
        VALUES ('${NTF}', 'proj_1', 'live', 'r', 'old', '{"a":1}', 60, ${T0}, ${T0 + 60_000});
      INSERT INTO ${s}.attempts (id, notification_id, position, browser_id, seq, status, final, accepted_at, expires_at)
        VALUES ('att_1', '${NTF}', 1, 'brw_1', 1, 'accepted', false, ${T0}, ${T0 + 60_000});
    `);

    const store = await createPostgresStore({ connectionString: testDatabaseUrl, schema });
    try {
      const found = await store.getNotification({ projectId: 'proj_1', id: NTF });
      expect(found?.notification).toMatchObject({
        title: 'old',
        data: { a: 1 },
        apiKeyId: null,
        requestId: null,
        idempotencyKey: null,
      });
      expect(found?.attempts.map((attempt) => attempt.id)).toEqual(['att_1']);
      const { rows } = await pool.query(`SELECT max(version)::int AS version FROM ${s}.schema_migrations`);
      expect(rows[0].version).toBe(migrations.length);
    } finally {
      await store.close();
    }
  });
});

describe('migration 16: attempts with the indexes their reads need, marked in place', () => {
  it('drops the unique index on (browser_id, seq) and leaves half of each new page for updates that write no index entry', async () => {
    await migrate(pool, schema, migrations.slice(0, 15));
    const s = quoteIdentifier(schema);
    const insertAttempts = (from: number, count: number) =>
      pool.query(
        `INSERT INTO ${s}.attempts (id, notification_id, position, browser_id, seq, status, final, accepted_at, expires_at)
         SELECT 'att_' || lpad(i::text, 6, '0'), '${NTF}', i, 'brw_' || i, 1, 'accepted', false, ${T0}, ${T0 + 60_000}
           FROM generate_series($1::int, $2::int) AS i`,
        [from, from + count - 1],
      );
    await insertAttempts(1, 10);
    await migrate(pool, schema, migrations);

    const constraints = await pool.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'u' ORDER BY conname`,
      [`${s}.attempts`],
    );
    expect(constraints.rows.map((row) => row.conname)).toEqual(['attempts_notification_id_position_key']);
    const options = await pool.query('SELECT reloptions FROM pg_class WHERE oid = to_regclass($1)', [`${s}.attempts`]);
    expect(options.rows[0].reloptions).toEqual(['fillfactor=50']);

    // Enough attempts to fill several pages: the first new one's page was left half free.
    await insertAttempts(1_000, 400);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const marked = await client.query(
        `UPDATE ${s}.attempts SET status = 'sent', sent_at = ${T0 + 5}, sent_via = 'stream' WHERE id = 'att_001000'`,
      );
      expect(marked.rowCount).toBe(1);
      const hot = await client.query('SELECT pg_stat_get_xact_tuples_hot_updated(to_regclass($1))::int AS hot', [
        `${s}.attempts`,
      ]);
      expect(hot.rows[0].hot).toBe(1);
      await client.query('COMMIT');
    } finally {
      client.release();
    }

    // The attempts from before read as they were.
    const store = await createPostgresStore({ connectionString: testDatabaseUrl, schema });
    try {
      await pool.query(
        `INSERT INTO ${s}.accounts (id, email, verified, created_at) VALUES ('acct_1', 'a@example.com', true, ${T0});
         INSERT INTO ${s}.projects (id, account_id, name, created_at) VALUES ('proj_1', 'acct_1', 'P', ${T0});
         INSERT INTO ${s}.notifications (id, project_id, mode, recipient, title, ttl, created_at, expires_at)
           VALUES ('${NTF}', 'proj_1', 'live', 'r', 'old', 60, ${T0}, ${T0 + 60_000});`,
      );
      const found = await store.getNotification({ projectId: 'proj_1', id: NTF });
      expect(found?.attempts).toHaveLength(410);
      expect(found?.attempts.find((attempt) => attempt.id === 'att_001000')).toMatchObject({
        status: 'sent',
        sentAt: T0 + 5,
        sentVia: 'stream',
      });
    } finally {
      await store.close();
    }
  });
});
