import type { Pool } from 'pg';

/**
 * A node-postgres `Pool` as the store uses it: what `new pg.Pool(…)` is. Declared here, rather
 * than as `Pool` of `@types/pg`, so that this package's types compile with only what a user
 * installs (`pg` ships no types of its own), and a wrong value is still refused rather than
 * read as `any`.
 */
export interface PostgresPool {
  connect(): Promise<PostgresPoolClient>;
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
}

/** A connection a {@link PostgresPool} lends: what node-postgres's `PoolClient` is. */
export interface PostgresPoolClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  release(destroy?: boolean | Error): void;
}

/** Options of {@link createPostgresStore}. */
export interface PostgresStoreOptions {
  /**
   * A `postgres://` URL for a pool the store opens, and closes with `close()`. Its `schema`
   * query parameter, if any, sets {@link PostgresStoreOptions.schema}. Give this or `pool`.
   */
  connectionString?: string;
  /**
   * A `pg` Pool of the host's, used as it is (its `search_path` is left alone: every table name
   * is qualified with the schema). `close()` leaves it open: it is the host's to end.
   */
  pool?: PostgresPool;
  /**
   * The PostgreSQL schema that holds the store's tables, created by the migrations if missing.
   * Its own schema keeps the store's `accounts` or `projects` apart from a host's tables of the
   * same name in one database. @default 'tidings'
   */
  schema?: string;
  /**
   * Apply the migrations at start (under an advisory lock, so instances starting together
   * apply each step once). With false, a schema that is not at the latest version is refused,
   * for deployments that run `tidings migrate` as a step of their own. @default true
   */
  migrate?: boolean;
  /** Connections of the pool the store opens from `connectionString`; ignored with `pool`. @default 10 */
  maxConnections?: number;
  /**
   * Usage counters per project and day, added up on read: a send adds to the shard of its
   * connection, so that concurrent sends of one project rarely wait on one row's lock.
   * @default 16
   */
  usageShards?: number;
}

/** {@link PostgresStoreOptions} resolved: exactly one of pool and connection string. */
export interface ResolvedPostgresStoreOptions {
  connectionString: string | null;
  pool: Pool | null;
  schema: string;
  migrate: boolean;
  maxConnections: number;
  usageShards: number;
}

/** The schema named by a connection string's `schema` query parameter, and the string without it. */
export function splitSchemaParameter(connectionString: string): { connectionString: string; schema: string | null } {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return { connectionString, schema: null };
  }
  const schema = url.searchParams.get('schema');
  if (schema === null) return { connectionString, schema: null };
  url.searchParams.delete('schema');
  return { connectionString: url.toString(), schema };
}

/** Applies the defaults and refuses a bad configuration at construction. */
export function resolvePostgresStoreOptions(options: PostgresStoreOptions): ResolvedPostgresStoreOptions {
  const { migrate = true, maxConnections = 10, usageShards = 16 } = options;
  // The pool is node-postgres's: its structural type above names only what a user's code must match.
  const pool = (options.pool ?? null) as Pool | null;
  if ((options.connectionString === undefined) === (pool === null)) {
    throw new TypeError('createPostgresStore: give exactly one of `connectionString` and `pool`');
  }
  let connectionString: string | null = null;
  let schema = options.schema;
  if (options.connectionString !== undefined) {
    if (typeof options.connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(options.connectionString)) {
      throw new TypeError('createPostgresStore: `connectionString` must be a postgres:// or postgresql:// URL');
    }
    const split = splitSchemaParameter(options.connectionString);
    connectionString = split.connectionString;
    if (split.schema !== null) {
      if (schema !== undefined && schema !== split.schema) {
        throw new TypeError('createPostgresStore: `schema` and the connection string name different schemas');
      }
      schema = split.schema;
    }
  }
  schema ??= 'tidings';
  if (typeof schema !== 'string' || !/^[A-Za-z_][A-Za-z0-9_$]{0,62}$/.test(schema)) {
    throw new TypeError(
      'createPostgresStore: `schema` must be 1 to 63 letters, digits, _ or $, starting with a letter or _',
    );
  }
  if (!Number.isInteger(maxConnections) || maxConnections < 1) {
    throw new TypeError('createPostgresStore: `maxConnections` must be a whole number, 1 or more');
  }
  if (!Number.isInteger(usageShards) || usageShards < 1 || usageShards > 1024) {
    throw new TypeError('createPostgresStore: `usageShards` must be a whole number from 1 to 1024');
  }
  return { connectionString, pool, schema, migrate: migrate !== false, maxConnections, usageShards };
}
