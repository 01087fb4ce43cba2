import { createPostgresStore, migratePostgres, type PostgresStore } from '@tidings/store-postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dropSchema, randomSchema, testDatabaseUrl } from '../../../store-postgres/src/test-support/test-database.js';
import { createPostgresDashboardStore } from './dashboard-store.js';
import { dashboardMigrations, migratePostgresDashboard } from './migrations.js';

const T0 = Date.UTC(2026, 0, 1, 12);

const DASHBOARD_TABLES = [
  'sessions',
  'email_codes',
  'audit_events',
  'passkeys',
  'recovery_codes',
  'pending_sign_ins',
  'webauthn_challenges',
  'dashboard_migrations',
];

/**
 * The dashboard's tables as the core's step 2 made them in a schema of an earlier release, before
 * the dashboard's own migrations made them.
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

/** Each test has a schema of its own, its store closed and the schema dropped after it. */
let schema: string;
const opened: PostgresStore[] = [];
beforeEach(() => {
  schema = randomSchema();
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  await dropSchema(schema);
});

/** A store on this test's schema, its own tables migrated, closed after the test. */
async function openStore(): Promise<PostgresStore> {
  const store = await createPostgresStore({ connectionString: testDatabaseUrl, schema });
  opened.push(store);
  return store;
}

/** SQL on the store's pool, `{schema}` standing for the quoted schema. */
async function query<Row>(store: PostgresStore, text: string, values: unknown[] = []): Promise<Row[]> {
  const quoted = `"${schema.replaceAll('"', '""')}"`;
  const result = await store.capabilities.database.pool.query(text.replaceAll('{schema}', quoted), values);
  return result.rows as Row[];
}

async function tablesPresent(store: PostgresStore): Promise<string[]> {
  const rows = await query<{ name: string }>(
    store,
    'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name = ANY($2) ORDER BY 1',
    [schema, DASHBOARD_TABLES],
  );
  return rows.map((row) => row.name);
}

async function accountColumns(store: PostgresStore): Promise<string[]> {
  const rows = await query<{ name: string }>(
    store,
    "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'accounts' ORDER BY 1",
    [schema],
  );
  return rows.map((row) => row.name);
}

describe("the dashboard's tables on PostgreSQL", () => {
  it('are absent from a schema whose store never opened the dashboard, and made when its store is', async () => {
    const store = await openStore();
    expect(await tablesPresent(store)).toEqual([]);
    expect(await accountColumns(store)).not.toContain('password_hash');

    const dashboardStore = createPostgresDashboardStore(store);
    expect(await dashboardStore.listOperatorIds()).toEqual([]);
    expect(await tablesPresent(store)).toEqual([...DASHBOARD_TABLES].sort());
    expect(await accountColumns(store)).toEqual(expect.arrayContaining(['password_hash', 'operator']));
  });

  it('are brought up to date, rows kept, in a schema the earlier core steps made them in', async () => {
    const store = await openStore();
    // As the core's step 2 made them, before its later steps changed them.
    await query(
      store,
      `
      ALTER TABLE {schema}.accounts ADD COLUMN password_hash text;
      ALTER TABLE {schema}.accounts ADD COLUMN operator boolean NOT NULL DEFAULT false;
      CREATE TABLE {schema}.sessions (
        hash text COLLATE "C" PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES {schema}.accounts (id),
        created_at bigint NOT NULL,
        idle_expires_at bigint NOT NULL,
        absolute_expires_at bigint NOT NULL
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
      INSERT INTO {schema}.accounts (id, email, verified, created_at, password_hash, operator)
        VALUES ('acct_1', 'a@example.com', true, ${T0}, 'scrypt$x', true);
      INSERT INTO {schema}.sessions VALUES ('h1', 'acct_1', ${T0}, ${T0 + 3_600_000}, ${T0 + 86_400_000});
    `,
    );

    const dashboardStore = createPostgresDashboardStore(store);
    expect(await dashboardStore.listOperatorIds()).toEqual(['acct_1']);
    expect(await tablesPresent(store)).toEqual([...DASHBOARD_TABLES].sort());
    const sessions = await query(store, 'SELECT hash, last_used_at::int8 AS "lastUsedAt" FROM {schema}.sessions');
    expect(sessions).toEqual([{ hash: 'h1', lastUsedAt: String(T0) }]);
    // The audit log no longer needs a project.
    await query(
      store,
      `INSERT INTO {schema}.audit_events (id, project_id, action, detail, created_at, source) VALUES ('aud_1', NULL, 'a', '{}', ${T0}, 'cli')`,
    );
    // Opening it again changes nothing.
    expect(await createPostgresDashboardStore(store).listOperatorIds()).toEqual(['acct_1']);
  });

  it("read the codes and audit entries of step 2's tables, and take entries of no project", async () => {
    const store = await openStore();
    await query(store, DASHBOARD_TABLES_OF_STEP_2);
    await query(
      store,
      `
      INSERT INTO {schema}.accounts (id, email, verified, created_at) VALUES ('acct_1', 'a@example.com', true, 1);
      INSERT INTO {schema}.projects (id, account_id, name, suspended, created_at, suspended_at)
        VALUES ('proj_1', 'acct_1', 'P', true, 1, 2);
      INSERT INTO {schema}.email_codes (email, purpose, code_hash, created_at, expires_at)
        VALUES ('x@example.com', 'invite', 'h', 1, 100);
      INSERT INTO {schema}.audit_events (id, project_id, action, actor_account_id, actor_email, ip, detail, created_at)
        VALUES ('aud_1', 'proj_1', 'project.created', 'acct_1', 'a@example.com', '127.0.0.1', 'P', 1);
    `,
    );

    const dashboard = createPostgresDashboardStore(store);
    expect(await dashboard.listInvitations({ now: 1, maxAttempts: 5, limit: 10 })).toEqual([
      { email: 'x@example.com', invitedBy: null, createdAt: 1, expiresAt: 100 },
    ]);
    const kept = {
      id: 'aud_1',
      projectId: 'proj_1',
      action: 'project.created',
      source: 'dashboard',
      actorAccountId: 'acct_1',
      actorEmail: 'a@example.com',
      actorName: null,
      ip: '127.0.0.1',
      detail: 'P',
      reason: null,
      createdAt: 1,
    };
    expect(await dashboard.listAuditEvents({ limit: 10 })).toEqual([kept]);
    const fromCli = {
      ...kept,
      id: 'aud_2',
      projectId: null,
      action: 'account.created' as const,
      source: 'cli' as const,
      actorAccountId: null,
      actorEmail: null,
      actorName: 'root',
      ip: null,
    };
    await dashboard.appendAuditEvent(fromCli);
    expect(await dashboard.listAuditEvents({ limit: 10 })).toEqual([fromCli, kept]);
  });

  it('are migrated by tidings migrate: migratePostgres hands its database to the dashboard', async () => {
    const connectionString = `${testDatabaseUrl}?schema=${schema}`;
    const first = await migratePostgres({ connectionString, alsoMigrate: migratePostgresDashboard });
    expect(first).toMatchObject({ from: 0, schema, alsoMigrated: { from: 0, to: dashboardMigrations.length } });
    const again = await migratePostgres({ connectionString, alsoMigrate: migratePostgresDashboard });
    expect(again.alsoMigrated).toEqual({ from: dashboardMigrations.length, to: dashboardMigrations.length });
    expect(await tablesPresent(await openStore())).toEqual([...DASHBOARD_TABLES].sort());
  });

  it('refuse a schema whose dashboard tables are newer than this package knows', async () => {
    const store = await openStore();
    await migratePostgresDashboard(store.capabilities.database);
    await query(store, 'INSERT INTO {schema}.dashboard_migrations (version) VALUES ($1)', [
      dashboardMigrations.length + 1,
    ]);
    await expect(migratePostgresDashboard(store.capabilities.database)).rejects.toThrow(
      `The tables of @tidings/dashboard in the PostgreSQL schema ${schema} are at version ${dashboardMigrations.length + 1}, newer than this @tidings/dashboard supports (${dashboardMigrations.length})`,
    );
    await expect(createPostgresDashboardStore(store).listOperatorIds()).rejects.toThrow(
      'newer than this @tidings/dashboard',
    );
  });
});
