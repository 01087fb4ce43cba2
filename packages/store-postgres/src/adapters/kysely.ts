/**
 * `@tidings/store-postgres/kysely`: a Kysely transaction on PostgreSQL
 * (`db.transaction().execute(async (trx) => …)`) as the transaction of a send
 * (docs/transactions.md).
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   await trx.insertInto('orders').values(order).execute();
 *   await tidings.notifications.send(input, { transaction: kyselyTransaction(trx) });
 * });
 */
import type { PostgresTransaction } from '@tidings/core';
import { CompiledQuery, type Transaction } from 'kysely';

/** The transaction of a send on a Kysely transaction of a PostgreSQL dialect. */
export function kyselyTransaction<Database>(trx: Pick<Transaction<Database>, 'executeQuery'>): PostgresTransaction {
  if (typeof trx?.executeQuery !== 'function') {
    throw new TypeError('kyselyTransaction takes the transaction of db.transaction().execute()');
  }
  return {
    async query(text, values) {
      const result = await trx.executeQuery(CompiledQuery.raw(text, values));
      return { rows: result.rows as unknown[] };
    },
  };
}
