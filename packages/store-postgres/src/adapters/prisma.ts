/**
 * `@tidings/store-postgres/prisma`: an interactive transaction of Prisma ORM 7 on PostgreSQL
 * (`prisma.$transaction(async (tx) => …)`, a client of the `prisma-client` generator with
 * `@prisma/adapter-pg`) as the transaction of a send (docs/transactions.md).
 *
 * @example
 * await prisma.$transaction(async (tx) => {
 *   await tx.order.create({ data: order });
 *   await tidings.notifications.send(input, { transaction: prismaTransaction(tx) });
 * });
 */
import type { PostgresTransaction } from '@tidings/core';

/**
 * What the transaction client of `prisma.$transaction(async (tx) => …)` offers: its
 * `Prisma.TransactionClient` fits, whatever the app's schema. Typed here rather than imported,
 * since each app generates its own client.
 */
export interface PrismaTransactionClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/** The transaction of a send on an interactive Prisma transaction. */
export function prismaTransaction(tx: PrismaTransactionClient): PostgresTransaction {
  if (typeof tx?.$queryRawUnsafe !== 'function') {
    throw new TypeError('prismaTransaction takes the client of prisma.$transaction(async (tx) => …)');
  }
  // The client itself can disconnect; the client of its transaction cannot. On the client, each
  // statement of the send would commit on its own, outside the app's transaction.
  if (typeof (tx as { $disconnect?: unknown }).$disconnect === 'function') {
    throw new TypeError(
      'prismaTransaction takes the transaction client `tx` of prisma.$transaction(async (tx) => …), not the PrismaClient',
    );
  }
  return {
    async query(text, values) {
      // Raw rows as Prisma reads them: int8 as bigint, json parsed; the store reads both.
      return { rows: await tx.$queryRawUnsafe<unknown[]>(text, ...values) };
    },
  };
}
