import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
import pg from 'pg';

/** A pool or one of its clients checked out for a transaction. */
export type Queryable = Pool | PoolClient;

// int8 (times in milliseconds, counts) and numeric (sums) as numbers: every one of them stays
// below 2^53. Set per query, never on pg's global parsers, which belong to the host's pool too.
const INT8 = 20;
const NUMERIC = 1700;
const parseNumber = (value: string) => Number(value);
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC
      ? parseNumber
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * One SQL statement of the store, prepared once per connection under its name; or, with `name`
 * null, parsed and planned at every run (see {@link Sql.statement}).
 */
export interface Statement {
  name: string | null;
  text: string;
}

/**
 * The statements of one store, on one schema. Every table name is qualified with the schema
 * (`sql.t('browsers')`), so a pool handed in by the host keeps its own `search_path`, and the
 * names of prepared statements carry the schema, so two stores on two schemas can share a pool.
 */
export interface Sql {
  /** The schema, quoted as an identifier. */
  schema: string;
  /** A table of the schema, qualified and quoted. */
  t(table: string): string;
  /**
   * A named statement of this schema. With `{ planEachRun: true }` it is planned at every run
   * instead: a prepared statement's plan is made once, from the table's size at the time, and
   * kept until the table is next analyzed. A statement that joins a table to a list of its own
   * rows (lock in order, then update) is planned as a scan of the whole table while the table
   * is young and small; in a new deployment that plan then scans tens of thousands of rows per
   * run until autovacuum gets round to it. These statements run at most once per batch.
   */
  statement(name: string, text: string, options?: { planEachRun?: boolean }): Statement;
}

/** Quotes an identifier for SQL. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The statements' namespace for one schema. */
export function createSql(schema: string): Sql {
  const quoted = quoteIdentifier(schema);
  // Statement names are at most 63 bytes: a short digest of the schema stands for it.
  const tag = createHash('sha256').update(schema).digest('hex').slice(0, 12);
  return {
    schema: quoted,
    t: (table) => `${quoted}.${quoteIdentifier(table)}`,
    statement: (name, text, options) => ({ name: options?.planEachRun ? null : `tidings_${tag}_${name}`, text }),
  };
}

/** Runs a prepared statement and returns its rows, with int8 and numeric read as numbers. */
export async function run<Row extends QueryResultRow = QueryResultRow>(
  db: Queryable,
  statement: Statement,
  values: unknown[] = [],
): Promise<Row[]> {
  const config: QueryConfig =
    statement.name === null
      ? { text: statement.text, values, types }
      : { name: statement.name, text: statement.text, values, types };
  return (await db.query<Row>(config)).rows;
}

/** The rows PostgreSQL's statistics must count in a table before a statement on it keeps its plan. */
export const KEPT_PLAN_MIN_ROWS = 1_000;
/** How often {@link keptPlanReady} reads the statistics again. */
export const KEPT_PLAN_CHECK_MS = 60_000;

/**
 * Whether a statement that reads `table` may keep its plan, read from PostgreSQL's statistics
 * (`pg_class.reltuples`) at the first call and then at most once per {@link KEPT_PLAN_CHECK_MS}.
 *
 * A kept plan is made from the table's size as it was then and used until PostgreSQL next
 * analyzes the table. Made while the table held a few rows, it scans the whole table, and keeps
 * scanning it as it grows, for good on a server with autovacuum off. Once the statistics count
 * {@link KEPT_PLAN_MIN_ROWS} rows, the table has been analyzed at that size, and any plan made
 * from then on is made for a table of that size or more. Until then the answer is no, and the
 * statement is planned at every run. A read that fails leaves the answer as it was until the
 * next check.
 */
export function keptPlanReady(table: string): (db: Queryable) => Promise<boolean> {
  let ready = false;
  let readAt = Number.NEGATIVE_INFINITY;
  // On the caller's connection: a statement inside a transaction must not wait for another.
  return async (db) => {
    const now = Date.now();
    if (now - readAt < KEPT_PLAN_CHECK_MS) return ready;
    readAt = now;
    try {
      const [row] = await runText<{ rows: number }>(
        db,
        'SELECT reltuples::int8 AS rows FROM pg_class WHERE oid = to_regclass($1)',
        [table],
      );
      ready = (row?.rows ?? -1) >= KEPT_PLAN_MIN_ROWS;
    } catch {
      // Asked again at the next check.
    }
    return ready;
  };
}

/** Runs SQL text once, unprepared (migrations, transaction control). */
export async function runText<Row extends QueryResultRow = QueryResultRow>(
  db: Queryable,
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  return (await db.query<Row>({ text, values, types })).rows;
}

const ended = Symbol('ended');

/** What a transaction's work resolves with when it ends the transaction otherwise than by a plain COMMIT. */
export interface Ended<T> {
  [ended]: 'rollback' | 'committed';
  value: T;
}

/** Ends the transaction with ROLLBACK (nothing it did stays) and resolves with `value`. */
export function rollBack<T>(value: T): Ended<T> {
  return { [ended]: 'rollback', value };
}

/**
 * Whether `client` sends a statement without waiting for the answer to the one before: a client
 * of a pool made with node-postgres's `pipeline: true` (the store's own pool is). Any other
 * client sends a statement only once the one before it has been answered: node-postgres 8 queues
 * a statement given to a busy client, with a deprecation warning, and node-postgres 9 drops that
 * queue, so on such a client the store never gives a statement before the answer to the last.
 */
export function pipelines(client: PoolClient): boolean {
  return (client as { pipeline?: unknown }).pipeline === true;
}

/** One statement (or none) of a transaction's end: see {@link commitWith}. */
export type LastStatement = (() => Promise<unknown>) | null;

/**
 * Runs the statements of `last` (in order, nulls skipped), then COMMIT, and resolves with
 * `value` once all of them succeeded. On a client that {@link pipelines}, they and COMMIT go out
 * in one exchange; on another, each after the answer to the one before. Should a statement
 * fail, the server ends the aborted transaction on COMMIT with a rollback (or COMMIT is not sent,
 * and {@link transaction} rolls back), and the statement's error is thrown.
 */
export async function commitWith<T>(client: PoolClient, last: LastStatement[], value: T): Promise<Ended<T>> {
  const statements = last.filter((statement) => statement !== null);
  if (pipelines(client)) {
    const sent = Promise.all(statements.map((statement) => statement()));
    const commit = client.query('COMMIT');
    commit.catch(() => {});
    await sent;
    await commit;
  } else {
    for (const statement of statements) await statement();
    await client.query('COMMIT');
  }
  return { [ended]: 'committed', value };
}

/**
 * Runs `work` in one READ COMMITTED transaction on a client of its own, and commits, unless
 * `work` ends it with {@link rollBack} or {@link commitWith}. On a client that {@link pipelines},
 * `BEGIN` goes out with the first statement of `work` without waiting for its answer, so a
 * transaction costs no round trip of its own; on another, `work` starts once `BEGIN` is answered.
 * Any error rolls back; a client whose connection broke is destroyed rather than returned to the
 * pool.
 */
export async function transaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T | Ended<T>>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection that ends mid-transaction fails the statement in flight and also emits
  // 'error', which must not go unheard; the client is then destroyed rather than reused.
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    const begin = client.query('BEGIN');
    // Pipelined, `work` sends its first statement behind BEGIN; an error of BEGIN fails it too.
    if (pipelines(client)) begin.catch(() => {});
    else await begin;
    const result = await work(client);
    await begin;
    if (typeof result === 'object' && result !== null && ended in result) {
      if (result[ended] === 'rollback') await client.query('ROLLBACK');
      return result.value;
    }
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
