import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore, migrateSqliteFile, type SqliteStore } from '@tidings/store-sqlite';
import { connectionOf } from '@tidings/store-sqlite/sql';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteDashboardStore } from './dashboard-store.js';
import { dashboardMigrations, migrateSqliteDashboard } from './migrations.js';

const T0 = Date.UTC(2026, 0, 1, 12);

/**
 * The dashboard's tables as the core's step 6 made them in a database of an earlier release,
 * before the dashboard's own migrations made them.
 */
const DASHBOARD_TABLES_OF_STEP_6 = `
  ALTER TABLE accounts ADD COLUMN password_hash TEXT;
  ALTER TABLE accounts ADD COLUMN operator INTEGER NOT NULL DEFAULT 0 CHECK (operator IN (0, 1));
  CREATE INDEX accounts_by_email ON accounts (email);

  CREATE TABLE sessions (
    hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at INTEGER NOT NULL,
    idle_expires_at INTEGER NOT NULL,
    absolute_expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX sessions_by_account ON sessions (account_id);

  CREATE TABLE email_codes (
    email TEXT NOT NULL,
    purpose TEXT NOT NULL CHECK (purpose IN ('verify', 'reset', 'invite', 'sign-in')),
    code_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (email, purpose)
  ) WITHOUT ROWID;

  CREATE TABLE audit_events (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    action TEXT NOT NULL,
    actor_account_id TEXT,
    actor_email TEXT,
    ip TEXT,
    detail TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX audit_events_by_project ON audit_events (project_id, id);
  `;

const DASHBOARD_TABLES = [
  'audit_events',
  'dashboard_migrations',
  'email_codes',
  'passkeys',
  'pending_sign_ins',
  'recovery_codes',
  'sessions',
  'webauthn_challenges',
];

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A path in a directory of its own, removed after the test. */
function tempPath(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-dashboard-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, name);
}

/** A store on a database file of its own, closed after the test. */
function openFileStore(): SqliteStore {
  const store = createSqliteStore({ path: tempPath('tidings.db') });
  cleanup.push(() => store.close());
  return store;
}

/** A store in memory, on which the test writes what an earlier release left. */
function openMemoryStore(): SqliteStore {
  const store = createSqliteStore({ path: ':memory:' });
  cleanup.push(() => store.close());
  return store;
}

function tablesOf(store: SqliteStore): { tables: string[]; accountColumns: string[] } {
  const db = connectionOf(store.capabilities.database);
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${DASHBOARD_TABLES.map(() => '?').join(', ')}) ORDER BY name`,
    )
    .pluck()
    .all(...DASHBOARD_TABLES) as string[];
  const accountColumns = (db.pragma('table_info(accounts)') as { name: string }[]).map((column) => column.name);
  return { tables, accountColumns };
}

describe("the dashboard's tables on SQLite", () => {
  it('are absent from a database whose store never opened the dashboard, and made when its store is', async () => {
    const store = openFileStore();
    expect(tablesOf(store).tables).toEqual([]);
    expect(tablesOf(store).accountColumns).not.toContain('password_hash');

    const dashboard = createSqliteDashboardStore(store);
    expect(await dashboard.listOperatorIds()).toEqual([]);
    expect(tablesOf(store).tables).toEqual(DASHBOARD_TABLES);
    expect(tablesOf(store).accountColumns).toEqual(expect.arrayContaining(['password_hash', 'operator']));
  });

  it("keep step 6's codes and audit entries, which then take reasons, actors and no project", async () => {
    const store = openMemoryStore();
    const db = connectionOf(store.capabilities.database);
    db.exec(DASHBOARD_TABLES_OF_STEP_6);
    db.exec(`
      INSERT INTO accounts (id, email, verified, created_at) VALUES ('acct_1', 'a@example.com', 1, ${T0});
      INSERT INTO projects (id, account_id, name, suspended, created_at, suspended_at)
        VALUES ('proj_1', 'acct_1', 'P', 1, ${T0}, ${T0 + 1});
      INSERT INTO email_codes (email, purpose, code_hash, created_at, expires_at, failed_attempts)
        VALUES ('x@example.com', 'invite', 'h', ${T0}, ${T0 + 86_400_000}, 0);
      INSERT INTO audit_events (id, project_id, action, actor_account_id, actor_email, ip, detail, created_at)
        VALUES ('aud_1', 'proj_1', 'project.created', 'acct_1', 'a@example.com', '127.0.0.1', 'P', ${T0});
    `);

    const dashboard = createSqliteDashboardStore(store);
    expect(await dashboard.listInvitations({ now: T0, maxAttempts: 5, limit: 10 })).toEqual([
      { email: 'x@example.com', invitedBy: null, createdAt: T0, expiresAt: T0 + 86_400_000 },
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
      createdAt: T0,
    };
    expect(await dashboard.listAuditEvents({ projectId: 'proj_1', limit: 10 })).toEqual([kept]);
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

  it("keep step 6's accounts, passwords and sessions, and start every account without a passkey", async () => {
    const store = openMemoryStore();
    const db = connectionOf(store.capabilities.database);
    db.exec(DASHBOARD_TABLES_OF_STEP_6);
    db.exec(`
      INSERT INTO accounts (id, email, verified, created_at, password_hash, operator)
        VALUES ('acct_1', 'a@example.com', 1, ${T0}, 'scrypt$hash', 1);
      INSERT INTO sessions (hash, account_id, created_at, idle_expires_at, absolute_expires_at)
        VALUES ('session-hash', 'acct_1', ${T0}, ${T0 + 60_000}, ${T0 + 120_000});
    `);

    const dashboard = createSqliteDashboardStore(store);
    const account = await dashboard.findAccountByEmail('a@example.com');
    expect(account).toMatchObject({ passwordHash: 'scrypt$hash', operator: true });
    const resumed = await dashboard.resumeSession({ hash: 'session-hash', now: T0 + 1, idleExpiresAt: T0 + 60_001 });
    expect(resumed?.account.account.id).toBe('acct_1');
    expect(await dashboard.listPasskeys('acct_1')).toEqual([]);
    expect(await dashboard.countRecoveryCodes('acct_1')).toBe(0);
  });

  it('are migrated by tidings migrate: migrateSqliteFile hands its database to the dashboard', () => {
    const path = tempPath('fresh.db');
    const first = migrateSqliteFile(path, 5000, { alsoMigrate: migrateSqliteDashboard });
    expect(first.alsoMigrated).toEqual({ from: 0, to: dashboardMigrations.length });
    const again = migrateSqliteFile(path, 5000, { alsoMigrate: migrateSqliteDashboard });
    expect(again).toEqual({
      from: first.to,
      to: first.to,
      alsoMigrated: { from: dashboardMigrations.length, to: dashboardMigrations.length },
    });
  });

  it('refuse a database whose dashboard tables are newer than this package knows', () => {
    const store = openMemoryStore();
    const { database } = store.capabilities;
    migrateSqliteDashboard(database);
    connectionOf(database)
      .prepare('INSERT INTO dashboard_migrations (version) VALUES (?)')
      .run(dashboardMigrations.length + 1);
    expect(() => createSqliteDashboardStore(store)).toThrow(
      `The dashboard's tables are at version ${dashboardMigrations.length + 1}, newer than this @tidings/dashboard supports (${dashboardMigrations.length})`,
    );
  });
});
