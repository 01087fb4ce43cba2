import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quoteIdentifier } from './db.js';
import { migrate, migrations } from './migrations.js';
import { createPostgresStore } from './postgres-store.js';
import { dropSchema, randomSchema, testDatabaseUrl } from './test-support/test-database.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const NTF = 'ntf_01jdv5cz00k2a7d3m9qx4w8t6e';

describe('migration 7: notifications record where they came from', () => {
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
