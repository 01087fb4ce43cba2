import type { DashboardStore } from '@tidings/dashboard';
import { createSqliteDashboardStore, migrateSqliteDashboard } from '@tidings/dashboard/sqlite';
import type { PostgresStore } from '@tidings/store-postgres';
import { createSqliteStore, migrateSqliteFile, type SqliteStore } from '@tidings/store-sqlite';

/**
 * Where the CLI's `--db` (or `TIDINGS_DB`) points: a `postgres://` or `postgresql://` URL is a
 * PostgreSQL database (its `?schema=` names the schema, default `tidings`); anything else is a
 * SQLite file.
 */
export type StoreTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** Reads a `--db` value. */
export function storeTarget(db: string): StoreTarget {
  return /^postgres(ql)?:\/\//i.test(db) ? { kind: 'postgres', url: db } : { kind: 'sqlite', path: db };
}

/** The `--db` value as it may be printed: a URL's password never is. */
export function describeTarget(target: StoreTarget): string {
  if (target.kind === 'sqlite') return target.path;
  try {
    const url = new URL(target.url);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://…';
  }
}

/** A store the CLI opened: its type says which database it is on. */
export type OpenedStore = SqliteStore | PostgresStore;

/**
 * Opens the store `--db` names. `serve` keeps it for the server's life; `admin` runs one short
 * command (a SQLite file then needs no checkpoint thread, a pool one connection).
 * `sqliteSynchronous` applies to a SQLite file only: PostgreSQL always commits synchronously.
 */
export async function openStore(
  target: StoreTarget,
  purpose: 'serve' | 'admin',
  { sqliteSynchronous }: { sqliteSynchronous?: 'full' | 'normal' } = {},
): Promise<OpenedStore> {
  if (target.kind === 'sqlite') {
    return createSqliteStore({
      path: target.path,
      ...(purpose === 'admin' ? { checkpointIntervalMs: 0 } : {}),
      ...(sqliteSynchronous ? { synchronous: sqliteSynchronous } : {}),
    });
  }
  const { createPostgresStore } = await loadPostgres();
  return createPostgresStore({ connectionString: target.url, ...(purpose === 'admin' ? { maxConnections: 1 } : {}) });
}

/** The dashboard's port on the database of a store {@link openStore} opened: closed with it. */
export async function openDashboardStore(store: OpenedStore): Promise<DashboardStore> {
  if (store.capabilities.database.dialect === 'sqlite') return createSqliteDashboardStore(store as SqliteStore);
  const { createPostgresDashboardStore } = await loadPostgresDashboard();
  return createPostgresDashboardStore(store as PostgresStore);
}

/**
 * Applies the migrations of the store `--db` names, the dashboard's tables included (the server
 * uses them): the store migrates its own, then hands its database to the dashboard's migrations.
 * Tells the versions before and after.
 */
export async function migrateStore(target: StoreTarget): Promise<{
  from: number;
  to: number;
  schema: string | null;
  dashboard: { from: number; to: number };
}> {
  if (target.kind === 'sqlite') {
    const { from, to, alsoMigrated } = migrateSqliteFile(target.path, 5000, { alsoMigrate: migrateSqliteDashboard });
    return { from, to, schema: null, dashboard: alsoMigrated! };
  }
  const [{ migratePostgres }, { migratePostgresDashboard }] = await Promise.all([
    loadPostgres(),
    loadPostgresDashboard(),
  ]);
  const { from, to, schema, alsoMigrated } = await migratePostgres({
    connectionString: target.url,
    alsoMigrate: migratePostgresDashboard,
  });
  return { from, to, schema, dashboard: alsoMigrated! };
}

/** The PostgreSQL store, loaded only for a postgres:// `--db`: a SQLite command starts without pg. */
function loadPostgres(): Promise<typeof import('@tidings/store-postgres')> {
  return import('@tidings/store-postgres');
}

/** The dashboard's store on PostgreSQL, loaded likewise. */
function loadPostgresDashboard(): Promise<typeof import('@tidings/dashboard/postgres')> {
  return import('@tidings/dashboard/postgres');
}
