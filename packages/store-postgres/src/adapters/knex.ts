/**
 * `@tidings/store-postgres/knex`: a Knex transaction on PostgreSQL (`knex.transaction(async (trx)
 * => …)`) as the transaction of a send (docs/transactions.md).
 *
 * @example
 * await knex.transaction(async (trx) => {
 *   await trx('orders').insert(order);
 *   await tidings.notifications.send(input, { transaction: knexTransaction(trx) });
 * });
 */
import type { PostgresTransaction } from '@tidings/core';
import type { Knex } from 'knex';

/** The transaction of a send on a Knex transaction of the `pg` client. */
export function knexTransaction(trx: Pick<Knex.Transaction, 'raw'>): PostgresTransaction {
  if (typeof trx?.raw !== 'function')
    throw new TypeError('knexTransaction takes the transaction of knex.transaction()');
  return {
    async query(text, values) {
      // Knex binds `?` in order: each `$n` becomes one, with its value at that place, and a
      // literal `?` of the text is escaped.
      const bindings: unknown[] = [];
      const positional = text.replaceAll('?', '\\?').replace(/\$(\d+)/g, (_, index: string) => {
        bindings.push(values[Number(index) - 1]);
        return '?';
      });
      const result = (await trx.raw(positional, bindings as Knex.RawBinding[])) as { rows: unknown[] };
      return { rows: result.rows };
    },
  };
}
