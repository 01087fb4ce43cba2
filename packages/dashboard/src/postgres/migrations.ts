import type { PostgresDatabase } from '@tidings/store-postgres';
import { type MigrateResult, migrateTables } from '@tidings/store-postgres/sql';

/**
 * The dashboard's tables in a PostgreSQL store's schema, one step per version of
 * `dashboard_migrations`, applied when a dashboard store is opened (`createPostgresDashboardStore`)
 * or by `tidings migrate`, and never by the core's store, so a schema without the dashboard has
 * none of them. Steps are append-only, as the core's are: a released step is never edited, a
 * change is a new step.
 *
 * Step 1 makes them as the core's steps 2 to 5 made them before those moved here: every
 * statement is one that changes nothing when its table, column, index or constraint is already
 * as it should be, so a schema those steps made (or half made, at version 2 to 4) is brought to
 * the same shape and keeps its rows.
 */
export const dashboardMigrations: readonly string[] = [
  `
  ALTER TABLE {schema}.accounts ADD COLUMN IF NOT EXISTS password_hash text;
  ALTER TABLE {schema}.accounts ADD COLUMN IF NOT EXISTS operator boolean NOT NULL DEFAULT false;
  CREATE INDEX IF NOT EXISTS accounts_by_email ON {schema}.accounts (email, created_at, id);

  CREATE TABLE IF NOT EXISTS {schema}.sessions (
    hash text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES {schema}.accounts (id),
    created_at bigint NOT NULL,
    idle_expires_at bigint NOT NULL,
    absolute_expires_at bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS sessions_by_account ON {schema}.sessions (account_id);
  ALTER TABLE {schema}.sessions
    ADD COLUMN IF NOT EXISTS last_used_at bigint,
    ADD COLUMN IF NOT EXISTS user_agent text,
    ADD COLUMN IF NOT EXISTS ip text;
  UPDATE {schema}.sessions SET last_used_at = created_at WHERE last_used_at IS NULL;

  CREATE TABLE IF NOT EXISTS {schema}.email_codes (
    email text NOT NULL,
    purpose text NOT NULL CHECK (purpose IN ('verify', 'reset', 'invite', 'sign-in')),
    code_hash text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    failed_attempts integer NOT NULL DEFAULT 0,
    PRIMARY KEY (email, purpose)
  );
  ALTER TABLE {schema}.email_codes ADD COLUMN IF NOT EXISTS issued_by text;

  -- The audit log keeps the entries of a deleted project, and changes of no project at all.
  CREATE TABLE IF NOT EXISTS {schema}.audit_events (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C",
    action text NOT NULL,
    actor_account_id text,
    actor_email text,
    ip text,
    detail text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS audit_events_by_project ON {schema}.audit_events (project_id, id);
  ALTER TABLE {schema}.audit_events DROP CONSTRAINT IF EXISTS audit_events_project_id_fkey;
  ALTER TABLE {schema}.audit_events
    ALTER COLUMN project_id DROP NOT NULL,
    ADD COLUMN IF NOT EXISTS source text NOT NULL DEFAULT 'dashboard' CHECK (source IN ('dashboard', 'cli')),
    ADD COLUMN IF NOT EXISTS actor_name text,
    ADD COLUMN IF NOT EXISTS reason text;
  ALTER TABLE {schema}.audit_events ALTER COLUMN source DROP DEFAULT;

  CREATE TABLE IF NOT EXISTS {schema}.passkeys (
    credential_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES {schema}.accounts (id),
    public_key text NOT NULL,
    counter bigint NOT NULL,
    transports text[] NOT NULL,
    name text NOT NULL,
    created_at bigint NOT NULL,
    last_used_at bigint
  );
  CREATE INDEX IF NOT EXISTS passkeys_by_account ON {schema}.passkeys (account_id, created_at);

  CREATE TABLE IF NOT EXISTS {schema}.recovery_codes (
    account_id text COLLATE "C" NOT NULL REFERENCES {schema}.accounts (id),
    hash text COLLATE "C" NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (account_id, hash)
  );

  CREATE TABLE IF NOT EXISTS {schema}.pending_sign_ins (
    hash text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES {schema}.accounts (id),
    next text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
  );

  CREATE TABLE IF NOT EXISTS {schema}.webauthn_challenges (
    key text COLLATE "C" PRIMARY KEY,
    challenge text NOT NULL,
    expires_at bigint NOT NULL
  );
  `,
];

/**
 * Brings the dashboard's tables in a PostgreSQL store's schema up to date, and tells their
 * versions before and after: the store's `capabilities.database`, or the database
 * `migratePostgres` hands to its `alsoMigrate` (as `tidings migrate` does). One transaction under
 * the same advisory lock as the core's migrations: instances opening their dashboard stores
 * together apply each step once.
 */
export function migratePostgresDashboard(database: Pick<PostgresDatabase, 'pool' | 'schema'>): Promise<MigrateResult> {
  return migrateTables(database, {
    steps: dashboardMigrations,
    versions: 'dashboard_migrations',
    owner: '@tidings/dashboard',
  });
}
