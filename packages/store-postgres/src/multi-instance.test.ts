import { hashSecret, newId, type Store } from '@tidings/core';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quoteIdentifier } from './db.js';
import { migrate, migrations } from './migrations.js';
import { createPostgresStore } from './postgres-store.js';
import { dropSchema, randomSchema, testDatabaseUrl } from './test-support/test-database.js';

const T0 = Date.UTC(2026, 0, 1, 12);

/** Several stores on one schema, as several instances of one deployment would hold. */
/**
 * The dashboard's tables as the core's step 2 made them in a schema of an earlier release, before
 * the dashboard's own migrations (in @tidings/dashboard) made them: the core's later steps must
 * leave them, and their rows, as they are.
 */
const DASHBOARD_TABLES_OF_STEP_2 = `
  ALTER TABLE {schema}.accounts ADD COLUMN password_hash text;
  ALTER TABLE {schema}.accounts ADD COLUMN operator boolean NOT NULL DEFAULT false;
  CREATE INDEX accounts_by_email ON {schema}.accounts (email, created_at, id);

  CREATE TABLE {schema}.sessions (
    hash text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES {schema}.accounts (id),
    created_at bigint NOT NULL,
    idle_expires_at bigint NOT NULL,
    absolute_expires_at bigint NOT NULL
  );
  CREATE INDEX sessions_by_account ON {schema}.sessions (account_id);

  CREATE TABLE {schema}.email_codes (
    email text NOT NULL,
    purpose text NOT NULL CHECK (purpose IN ('verify', 'reset', 'invite', 'sign-in')),
    code_hash text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    failed_attempts integer NOT NULL DEFAULT 0,
    PRIMARY KEY (email, purpose)
  );

  CREATE TABLE {schema}.audit_events (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES {schema}.projects (id),
    action text NOT NULL,
    actor_account_id text,
    actor_email text,
    ip text,
    detail text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX audit_events_by_project ON {schema}.audit_events (project_id, id);
  `;

describe('PostgreSQL store: several instances on one schema', () => {
  let schema: string;
  let stores: Store[];
  let admin: pg.Pool;

  const instances = async (count: number) => {
    const made = await Promise.all(
      Array.from({ length: count }, () => createPostgresStore({ connectionString: testDatabaseUrl, schema })),
    );
    stores.push(...made);
    return made;
  };

  beforeEach(() => {
    schema = randomSchema();
    stores = [];
    admin = new pg.Pool({ connectionString: testDatabaseUrl, max: 2 });
  });
  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await admin.end();
    await dropSchema(schema);
  });

  async function seed(store: Store) {
    const account = await store.createAccount({ id: newId('acct'), email: 'a@example.com', verified: true, now: T0 });
    const created = await store.createProject({
      id: newId('proj'),
      accountId: account.id,
      name: 'P',
      now: T0,
      maxProjects: 10,
    });
    if (created.kind !== 'created') throw new Error(created.kind);
    return created.project;
  }

  it('applies each migration once when instances start together', async () => {
    await instances(4);
    const { rows } = await admin.query(`SELECT version FROM ${quoteIdentifier(schema)}.schema_migrations`);
    expect(rows.map((row) => row.version)).toEqual(migrations.map((_, index) => index + 1));
  });

  it('refuses a key revoked and a project suspended by another instance at the next lookup', async () => {
    const [one, two] = await instances(2);
    const project = await seed(one!);
    const value = `sk_live_${'A'.repeat(32)}`;
    const key = await one!.createApiKey({
      id: newId('key'),
      projectId: project.id,
      hash: hashSecret(value),
      prefix: value.slice(0, 12),
      mode: 'live',
      name: null,
      now: T0,
      maxActive: 10,
    });
    if (key.kind !== 'created') throw new Error(key.kind);
    expect((await two!.findApiKeyByHash(hashSecret(value)))?.key.revokedAt).toBeNull();
    await one!.setProjectSuspended({ id: project.id, suspended: true, now: T0 + 1 });
    expect((await two!.findApiKeyByHash(hashSecret(value)))?.project.suspended).toBe(true);
    await one!.revokeApiKey({ id: key.key.id, now: T0 + 2 });
    expect((await two!.findApiKeyByHash(hashSecret(value)))?.key.revokedAt).toBe(T0 + 2);
  });

  it('finds no key of a project deleted by another instance at the next lookup', async () => {
    const [one, two] = await instances(2);
    const project = await seed(one!);
    const value = `sk_test_${'D'.repeat(32)}`;
    const key = await one!.createApiKey({
      id: newId('key'),
      projectId: project.id,
      hash: hashSecret(value),
      prefix: value.slice(0, 12),
      mode: 'test',
      name: null,
      now: T0,
      maxActive: 10,
    });
    if (key.kind !== 'created') throw new Error(key.kind);
    expect(await two!.findApiKeyByHash(hashSecret(value))).not.toBeNull();
    expect(await one!.deleteProject({ id: project.id })).toBe(true);
    expect(await two!.findApiKeyByHash(hashSecret(value))).toBeNull();
    expect(await two!.getProject(project.id)).toBeNull();
  });

  it('numbers one browser’s attempts without a gap when several instances send to it', async () => {
    const made = await instances(3);
    const project = await seed(made[0]!);
    const browser = await made[0]!.registerBrowser({
      id: newId('brw'),
      projectId: project.id,
      recipient: 'user-1',
      secretHash: hashSecret('bs_x'),
      now: T0,
    });
    const sends = Array.from({ length: 30 }, (_, index) =>
      made[index % 3]!.createNotification({
        notification: {
          id: newId('ntf'),
          projectId: project.id,
          mode: 'live',
          recipient: 'user-1',
          title: 'Hi',
          body: null,
          url: null,
          icon: null,
          tag: null,
          data: null,
          ttl: 60,
          createdAt: T0 + index,
          expiresAt: T0 + index + 60_000,
          apiKeyId: null,
          requestId: null,
          idempotencyKey: null,
        },
        newAttemptId: () => newId('att'),
        idempotency: null,
        render: () => ({ status: 201, body: '{}' }),
      }),
    );
    const results = await Promise.all(sends);
    const seqs = results.map((result) => (result.kind === 'created' ? result.created.attempts[0]!.seq : 0));
    expect(seqs.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
    const deliveries = await made[1]!.listDeliveries({ browserId: browser.id, now: T0 });
    expect(deliveries.map((delivery) => delivery.seq)).toEqual(seqs);
    expect(await made[2]!.getUsage({ projectId: project.id, fromDay: '2026-01-01', toDay: '2026-01-01' })).toEqual([
      { day: '2026-01-01', notifications: 30, attempts: 30 },
    ]);
  });

  it('leaves no claim behind when a send’s connection dies inside its transaction', async () => {
    const [store] = await instances(1);
    const project = await seed(store!);
    const browser = await store!.registerBrowser({
      id: newId('brw'),
      projectId: project.id,
      recipient: 'user-1',
      secretHash: hashSecret('bs_x'),
      now: T0,
    });
    const send = (key: string) =>
      store!.createNotification({
        notification: {
          id: newId('ntf'),
          projectId: project.id,
          mode: 'live',
          recipient: 'user-1',
          title: 'Hi',
          body: null,
          url: null,
          icon: null,
          tag: null,
          data: null,
          ttl: 60,
          createdAt: T0,
          expiresAt: T0 + 60_000,
          apiKeyId: null,
          requestId: null,
          idempotencyKey: null,
        },
        newAttemptId: () => newId('att'),
        idempotency: { key, fingerprint: 'fp', expiresAt: T0 + 86_400_000 },
        render: () => ({ status: 201, body: '{"ok":true}' }),
      });
    // Another session holds the browser's row: the send claims its key, then waits for the row
    // in the statement that records it.
    const holder = await admin.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT 1 FROM ${quoteIdentifier(schema)}.browsers WHERE id = $1 FOR UPDATE`, [browser.id]);
    const dying = send('k1');
    dying.catch(() => {});
    await expect
      .poll(async () => {
        const { rows } = await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%last_seq + 1%'",
        );
        return rows[0].n;
      })
      .toBe(1);
    // The send's process dies: its connection ends in the middle of the transaction.
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%last_seq + 1%'",
    );
    await expect(dying).rejects.toThrow();
    await holder.query('ROLLBACK');
    holder.release();

    expect(
      await store!.findIdempotentResponse({ projectId: project.id, key: 'k1', fingerprint: 'fp', now: T0 }),
    ).toEqual({
      kind: 'none',
    });
    const retried = await send('k1');
    expect(retried.kind).toBe('created');
    expect((await store!.listDeliveries({ browserId: browser.id, now: T0 })).map((delivery) => delivery.seq)).toEqual([
      1,
    ]);
  });
});

describe('PostgreSQL store: schema and options', () => {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map(dropSchema));
  });

  it('takes the schema from the connection string and refuses an unmigrated one with migrate: false', async () => {
    const schema = randomSchema();
    made.push(schema);
    await expect(
      createPostgresStore({ connectionString: `${testDatabaseUrl}?schema=${schema}`, migrate: false }),
    ).rejects.toThrow(/version 0.*tidings migrate/);
    const store = await createPostgresStore({ connectionString: `${testDatabaseUrl}?schema=${schema}` });
    await store.close();
    const again = await createPostgresStore({
      connectionString: `${testDatabaseUrl}?schema=${schema}`,
      migrate: false,
    });
    expect(await again.listAccounts()).toEqual([]);
    await again.close();
  });

  it("migration 3 (operators' actions) keeps projects, and the dashboard's codes and audit entries", async () => {
    const schema = randomSchema();
    made.push(schema);
    const pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 1 });
    const s = quoteIdentifier(schema);
    try {
      await migrate(pool, schema, migrations.slice(0, 2));
      await pool.query(DASHBOARD_TABLES_OF_STEP_2.replaceAll('{schema}', s));
      await pool.query(`
        INSERT INTO ${s}.accounts (id, email, verified, created_at) VALUES ('acct_1', 'a@example.com', true, 1);
        INSERT INTO ${s}.projects (id, account_id, name, suspended, created_at, suspended_at)
          VALUES ('proj_1', 'acct_1', 'P', true, 1, 2);
        INSERT INTO ${s}.email_codes (email, purpose, code_hash, created_at, expires_at)
          VALUES ('x@example.com', 'invite', 'h', 1, 100);
        INSERT INTO ${s}.audit_events (id, project_id, action, actor_account_id, actor_email, ip, detail, created_at)
          VALUES ('aud_1', 'proj_1', 'project.created', 'acct_1', 'a@example.com', '127.0.0.1', 'P', 1);
      `);
      const store = await createPostgresStore({ connectionString: testDatabaseUrl, schema });
      try {
        expect(await store.getProject('proj_1')).toMatchObject({
          suspended: true,
          suspendedAt: 2,
          suspendedReason: null,
        });
      } finally {
        await store.close();
      }
      // The dashboard's own migrations bring these up to date when it opens them.
      const codes = await pool.query(`SELECT email, purpose, failed_attempts FROM ${s}.email_codes`);
      expect(codes.rows).toEqual([{ email: 'x@example.com', purpose: 'invite', failed_attempts: 0 }]);
      const audit = await pool.query(`SELECT id, project_id, action, detail FROM ${s}.audit_events`);
      expect(audit.rows).toEqual([{ id: 'aud_1', project_id: 'proj_1', action: 'project.created', detail: 'P' }]);
    } finally {
      await pool.end();
    }
  });

  it('refuses a schema newer than it knows', async () => {
    const schema = randomSchema();
    made.push(schema);
    const store = await createPostgresStore({ connectionString: testDatabaseUrl, schema });
    await store.close();
    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    await client.query(
      `INSERT INTO ${quoteIdentifier(schema)}.schema_migrations (version) VALUES (${migrations.length + 1})`,
    );
    await client.end();
    await expect(createPostgresStore({ connectionString: testDatabaseUrl, schema })).rejects.toThrow(/newer/);
  });

  it('uses a host pool as it is and leaves it open on close', async () => {
    const schema = randomSchema();
    made.push(schema);
    const pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 3 });
    try {
      const store = await createPostgresStore({ pool, schema });
      expect(await store.listAccounts()).toEqual([]);
      await store.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      const { rows } = await pool.query('SHOW search_path');
      expect(rows[0].search_path).not.toContain(schema);
    } finally {
      await pool.end();
    }
  });

  it('refuses a pool that commits asynchronously', async () => {
    const schema = randomSchema();
    made.push(schema);
    const pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 1, options: '-c synchronous_commit=off' });
    try {
      await expect(createPostgresStore({ pool, schema })).rejects.toThrow(/synchronous_commit/);
    } finally {
      await pool.end();
    }
  });

  it('refuses bad options at construction', async () => {
    await expect(createPostgresStore({})).rejects.toThrow(/exactly one/);
    await expect(createPostgresStore({ connectionString: 'mysql://x' })).rejects.toThrow(/postgres:\/\//);
    await expect(createPostgresStore({ connectionString: testDatabaseUrl, schema: 'bad name' })).rejects.toThrow(
      /schema/,
    );
    await expect(createPostgresStore({ connectionString: `${testDatabaseUrl}?schema=a`, schema: 'b' })).rejects.toThrow(
      /different schemas/,
    );
    await expect(createPostgresStore({ connectionString: testDatabaseUrl, usageShards: 0 })).rejects.toThrow(
      /usageShards/,
    );
  });
});
