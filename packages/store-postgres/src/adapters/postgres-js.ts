/**
 * `@tidings/store-postgres/postgres-js`: a postgres.js transaction (`sql.begin(async (tx) => …)`)
 * as the transaction of a send (docs/transactions.md).
 *
 * @example
 * await sql.begin(async (tx) => {
 *   await tx`INSERT INTO orders ${tx(order)}`;
 *   await tidings.notifications.send(input, { transaction: postgresJsTransaction(tx) });
 * });
 */
import type { PostgresTransaction } from '@tidings/core';
import type { ParameterOrJSON, Sql } from 'postgres';

/** The transaction of a send on a postgres.js transaction (`sql.begin`'s argument). */
export function postgresJsTransaction(tx: Pick<Sql, 'unsafe'>): PostgresTransaction {
  if (typeof tx?.unsafe !== 'function')
    throw new TypeError('postgresJsTransaction takes the transaction of sql.begin()');
  return {
    async query(text, values) {
      const rows = await tx.unsafe(text, values as ParameterOrJSON<never>[]);
      return { rows: [...rows] };
    },
  };
}
