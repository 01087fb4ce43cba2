/**
 * `@tidings/store-postgres/drizzle`: a Drizzle transaction on PostgreSQL, over node-postgres or
 * postgres.js (`db.transaction(async (tx) => …)`), as the transaction of a send
 * (docs/transactions.md).
 *
 * @example
 * await db.transaction(async (tx) => {
 *   await tx.insert(orders).values(order);
 *   await tidings.notifications.send(input, { transaction: drizzleTransaction(tx) });
 * });
 */
import type { PostgresTransaction } from '@tidings/core';
import { type SQL, sql } from 'drizzle-orm';

/** What a Drizzle PostgreSQL transaction of either driver offers. */
interface DrizzleExecutor {
  execute(query: SQL): PromiseLike<unknown>;
}

/** The transaction of a send on a Drizzle transaction (node-postgres or postgres.js driver). */
export function drizzleTransaction(tx: DrizzleExecutor): PostgresTransaction {
  if (typeof tx?.execute !== 'function')
    throw new TypeError('drizzleTransaction takes the transaction of db.transaction()');
  return {
    async query(text, values) {
      // Each `$n` becomes a parameter of Drizzle's, which numbers them again in order.
      const chunks: SQL[] = [];
      let last = 0;
      for (const match of text.matchAll(/\$(\d+)/g)) {
        chunks.push(sql.raw(text.slice(last, match.index)), sql`${sql.param(values[Number(match[1]) - 1])}`);
        last = match.index + match[0].length;
      }
      chunks.push(sql.raw(text.slice(last)));
      const result = await tx.execute(sql.join(chunks));
      // node-postgres answers a result with rows, postgres.js the list of rows itself.
      return { rows: Array.isArray(result) ? [...result] : ((result as { rows: unknown[] }).rows ?? []) };
    },
  };
}
