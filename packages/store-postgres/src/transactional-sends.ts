import { createHash } from 'node:crypto';
import type { PostgresTransaction } from '@tidings/core';
import type { CreateNotificationResult, JobWakeups, NewJob, PostgresTransactionalSends } from '@tidings/core/store';
import pg from 'pg';
import type { Statement } from './db.js';
import { type RunStatement, type SendStatements, writeSend } from './send-statements.js';

/** What a send through an application's transaction needs from the store. */
export interface TransactionalSendDeps {
  /** The store's pool: the listening connection is made with its options. */
  pool: pg.Pool;
  /** The schema, unquoted: the channel of the commit signals is named after it. */
  schema: string;
  usageShards: number;
  statements: SendStatements;
  insertJobsText: (jobs: readonly NewJob[], now: number) => [string, unknown[]];
  wakeups: JobWakeups;
}

/** The longest payload of a signal; a longer list of browsers is sent as "catch every stream up". */
const MAX_PAYLOAD_BYTES = 7_900;
/** How long the listening connection waits before it connects again after a failure. */
const RELISTEN_DELAY_MS = 1_000;

/** The channel that carries the commits of sends of one schema. */
export function sendsChannel(schema: string): string {
  return `tidings_sends_${createHash('sha256').update(schema).digest('hex').slice(0, 12)}`;
}

/** What one signal carries: the browsers of the attempts and the kinds of the jobs. */
interface Signal {
  b: string[] | null;
  j: string[];
}

/** A node-postgres client takes a statement with a name, which it prepares once per connection. */
interface NamedQueries {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** True for a node-postgres `Client` or `PoolClient` (what `BEGIN` was sent on, as it is). */
function takesNamedStatements(transaction: PostgresTransaction): transaction is PostgresTransaction & NamedQueries {
  return typeof (transaction as { connectionParameters?: unknown }).connectionParameters === 'object';
}

/**
 * Runs a statement of the store in the application's transaction: prepared under its name on a
 * node-postgres client (as on the store's own connections: parsed and planned once per
 * connection), as text with its parameters through any other.
 */
async function rowsOf<Row>(transaction: PostgresTransaction, statement: Statement, values: unknown[]): Promise<Row[]> {
  const { name, text } = statement;
  const result =
    name !== null && takesNamedStatements(transaction)
      ? await transaction.query({ name, text, values })
      : await transaction.query(text, values);
  return result.rows as Row[];
}

/**
 * Sends through an application's PostgreSQL transaction: a send of the store (send-statements.ts)
 * on the application's connection (see {@link rowsOf}), then, in the same transaction,
 * `synchronous_commit` on for it (its commit is durable before anyone hears of it, whatever the
 * application's connection is set to) and `pg_notify`, which PostgreSQL delivers to every
 * listening instance only once the transaction has committed, and never if it rolls back.
 */
export function transactionalSends(deps: TransactionalSendDeps): PostgresTransactionalSends {
  const { statements, usageShards } = deps;
  const channel = sendsChannel(deps.schema);
  // pg_notify in FROM: its void is no column of the answer, which not every library reads (Prisma
  // refuses a void column). Every statement through an application's transaction answers only
  // columns of ordinary types.
  const signal: Statement = {
    name: `${channel}_signal`,
    text: "SELECT set_config('synchronous_commit', 'on', true) FROM pg_notify($1, $2)",
  };

  const runIn =
    (transaction: PostgresTransaction): RunStatement =>
    <Row extends object>(statement: Statement, values: unknown[]) =>
      rowsOf<Row>(transaction, statement, values);

  return {
    dialect: 'postgres',
    async createNotification(transaction, input): Promise<CreateNotificationResult> {
      const { notification, idempotency } = input;
      const written = await writeSend(runIn(transaction), statements, input, usageShards);
      if (written.kind === 'refused') {
        // The key stays free even if the application commits after this refusal.
        if (written.outcome.kind === 'no-connected-browser' && idempotency !== null) {
          await rowsOf(transaction, statements.dropClaim, [notification.projectId, idempotency.key]);
        }
        return written.outcome;
      }
      const { storeResult, jobs } = written;
      if (storeResult) await rowsOf(transaction, statements.storeResult, storeResult);
      if (jobs.length > 0) {
        const [text, values] = deps.insertJobsText(jobs, notification.createdAt);
        await rowsOf(transaction, { name: null, text }, values);
      }
      const { attempts } = written.outcome.created;
      const browsers = notification.mode === 'live' ? attempts.map((attempt) => attempt.browserId) : [];
      const told: Signal = { b: browsers, j: [...new Set(jobs.map((job) => job.kind))] };
      let payload = JSON.stringify(told);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) payload = JSON.stringify({ b: null, j: told.j });
      await rowsOf(transaction, signal, [channel, payload]);
      return written.outcome;
    },

    async listen(onCommitted) {
      let client: pg.Client | null = null;
      let stopped = false;
      let retry: ReturnType<typeof setTimeout> | null = null;
      const onNotification = (message: { channel: string; payload?: string }) => {
        if (message.channel !== channel) return;
        let signal: Signal;
        try {
          signal = JSON.parse(message.payload ?? '') as Signal;
        } catch {
          signal = { b: null, j: [] };
        }
        if (signal.j.length > 0) deps.wakeups.notify(signal.j);
        if (signal.b === null || signal.b.length > 0) onCommitted(signal.b);
      };
      const connect = async (): Promise<void> => {
        // A connection of its own, beside the pool: a pool of one would otherwise have none left.
        const next = new pg.Client(deps.pool.options);
        next.on('notification', onNotification);
        next.on('error', () => {
          if (client !== next) return;
          client = null;
          next.end().catch(() => {});
          if (!stopped) retry = setTimeout(again, RELISTEN_DELAY_MS);
        });
        try {
          await next.connect();
          await next.query(`LISTEN ${channel}`);
        } catch (error) {
          await next.end().catch(() => {});
          throw error;
        }
        if (stopped) {
          await next.end().catch(() => {});
          return;
        }
        client = next;
        // Signals sent while nobody listened here are lost: every open stream is caught up.
        onCommitted(null);
      };
      const again = () => {
        retry = null;
        if (stopped) return;
        connect().catch(() => {
          if (!stopped) retry = setTimeout(again, RELISTEN_DELAY_MS);
        });
      };
      // A first connection that fails is tried again, as a lost one is: the instance starts anyway.
      await connect().catch(() => {
        if (!stopped) retry = setTimeout(again, RELISTEN_DELAY_MS);
      });
      return async () => {
        stopped = true;
        if (retry !== null) clearTimeout(retry);
        const listening = client as pg.Client | null;
        client = null;
        await listening?.end().catch(() => {});
      };
    },
  };
}
