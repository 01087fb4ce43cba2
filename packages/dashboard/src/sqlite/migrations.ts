import type { SqliteDatabase } from '@tidings/store-sqlite';
import { connectionOf } from '@tidings/store-sqlite/sql';
import type { Connection } from './rows.js';

/**
 * The dashboard's tables on a SQLite store's database, one step per version of the
 * `dashboard_migrations` table, applied when a dashboard store is opened
 * (`createSqliteDashboardStore`) or by `tidings migrate`, and never by the core's store, so a
 * database without the dashboard has none of them. Steps are append-only, as the core's are: a
 * released step is never edited, a change is a new step.
 *
 * Step 1 makes them as the core's steps 6 to 9 made them before those moved here, and changes
 * nothing that is already as it should be: a database those steps made (or half made, at version
 * 6 to 8) is brought to the same shape and keeps its rows.
 */
export const dashboardMigrations: readonly ((db: Connection) => void)[] = [
  (db) => {
    addMissingColumns(db, 'accounts', {
      password_hash: 'TEXT',
      operator: 'INTEGER NOT NULL DEFAULT 0 CHECK (operator IN (0, 1))',
    });
    db.exec(`
      CREATE INDEX IF NOT EXISTS accounts_by_email ON accounts (email);

      CREATE TABLE IF NOT EXISTS sessions (
        hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        created_at INTEGER NOT NULL,
        idle_expires_at INTEGER NOT NULL,
        absolute_expires_at INTEGER NOT NULL,
        last_used_at INTEGER,
        user_agent TEXT,
        ip TEXT
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS sessions_by_account ON sessions (account_id);

      CREATE TABLE IF NOT EXISTS email_codes (
        email TEXT NOT NULL,
        purpose TEXT NOT NULL CHECK (purpose IN ('verify', 'reset', 'invite', 'sign-in')),
        code_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        failed_attempts INTEGER NOT NULL DEFAULT 0,
        issued_by TEXT,
        PRIMARY KEY (email, purpose)
      ) WITHOUT ROWID;
    `);
    addMissingColumns(db, 'sessions', { last_used_at: 'INTEGER', user_agent: 'TEXT', ip: 'TEXT' });
    db.exec('UPDATE sessions SET last_used_at = created_at WHERE last_used_at IS NULL');
    addMissingColumns(db, 'email_codes', { issued_by: 'TEXT' });

    // The audit log keeps the entries of a deleted project, and changes of no project at all. An
    // older one (a project required, or no source) is copied, as SQLite cannot change it in place.
    const auditColumns = columnsOf(db, 'audit_events');
    const referencesProjects =
      auditColumns.length > 0 && (db.pragma('foreign_key_list(audit_events)') as unknown[]).length > 0;
    if (auditColumns.length > 0 && (referencesProjects || !auditColumns.includes('source'))) {
      const has = (column: string, otherwise: string) => (auditColumns.includes(column) ? column : otherwise);
      db.exec(`
        CREATE TABLE audit_events_next (${AUDIT_EVENTS_COLUMNS});
        INSERT INTO audit_events_next
          (id, project_id, action, source, actor_account_id, actor_email, actor_name, ip, detail, reason, created_at)
        SELECT id, project_id, action, ${has('source', "'dashboard'")}, actor_account_id, actor_email,
               ${has('actor_name', 'NULL')}, ip, detail, ${has('reason', 'NULL')}, created_at
          FROM audit_events;
        DROP TABLE audit_events;
        ALTER TABLE audit_events_next RENAME TO audit_events;
      `);
    }
    db.exec(`
      CREATE TABLE IF NOT EXISTS audit_events (${AUDIT_EVENTS_COLUMNS});
      CREATE INDEX IF NOT EXISTS audit_events_by_project ON audit_events (project_id, id);

      CREATE TABLE IF NOT EXISTS passkeys (
        credential_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        public_key TEXT NOT NULL,
        counter INTEGER NOT NULL,
        transports TEXT NOT NULL,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS passkeys_by_account ON passkeys (account_id, created_at);

      CREATE TABLE IF NOT EXISTS recovery_codes (
        account_id TEXT NOT NULL REFERENCES accounts (id),
        hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, hash)
      ) WITHOUT ROWID;

      CREATE TABLE IF NOT EXISTS pending_sign_ins (
        hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        next TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE IF NOT EXISTS webauthn_challenges (
        key TEXT PRIMARY KEY,
        challenge TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  },
];

/** The audit log's columns, as the core's step 9 left them. */
const AUDIT_EVENTS_COLUMNS = `
  id TEXT PRIMARY KEY,
  project_id TEXT,
  action TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('dashboard', 'cli')),
  actor_account_id TEXT,
  actor_email TEXT,
  actor_name TEXT,
  ip TEXT,
  detail TEXT NOT NULL,
  reason TEXT,
  created_at INTEGER NOT NULL`;

/** The names of a table's columns; none for a table that does not exist. */
function columnsOf(db: Connection, table: string): string[] {
  return (db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name);
}

function addMissingColumns(db: Connection, table: string, columns: Record<string, string>): void {
  const present = columnsOf(db, table);
  for (const [name, type] of Object.entries(columns)) {
    if (!present.includes(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
  }
}

/** The versions of the dashboard's tables before and after {@link migrateSqliteDashboard}. */
export interface DashboardMigrateResult {
  from: number;
  to: number;
}

/**
 * Brings the dashboard's tables on a SQLite store's database up to date, and tells the versions
 * before and after: the store's `capabilities.database`, or the database `migrateSqliteFile`
 * hands to its `alsoMigrate` (as `tidings migrate` does). Each step runs in its own IMMEDIATE
 * transaction and re-reads the version inside it, so two processes opening their dashboard
 * stores at once apply it once. A version newer than this package knows is refused rather than
 * misread.
 */
export function migrateSqliteDashboard(database: Pick<SqliteDatabase, 'connection'>): DashboardMigrateResult {
  const db = connectionOf(database);
  const steps = dashboardMigrations;
  db.exec('CREATE TABLE IF NOT EXISTS dashboard_migrations (version INTEGER PRIMARY KEY)');
  const version = () =>
    (db.prepare('SELECT coalesce(max(version), 0) AS version FROM dashboard_migrations').get() as { version: number })
      .version;
  const from = version();
  if (from > steps.length) {
    throw new Error(
      `The dashboard's tables are at version ${from}, newer than this @tidings/dashboard supports (${steps.length})`,
    );
  }
  steps.forEach((step, index) => {
    db.transaction(() => {
      if (version() > index) return;
      step(db);
      db.prepare('INSERT INTO dashboard_migrations (version) VALUES (?)').run(index + 1);
    }).immediate();
  });
  return { from, to: version() };
}
