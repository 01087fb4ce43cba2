import type { PostgresTransaction, Store } from '@tidings/core';
import { quietPeriod, until } from '@tidings/core/testing';
import { LOCAL_PUSH, localDeliveries, subscribeThenClose } from '@tidings/test-support/local-deliveries.js';
import { startTestPushService, type TestPushService } from '@tidings/test-support/push-service.js';
import { startWebhookReceiver, type TestWebhookReceiver } from '@tidings/test-support/webhook-receiver.js';
import { sql as drizzleSql } from 'drizzle-orm';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import knex, { type Knex } from 'knex';
import { Kysely, sql as kyselySql, PostgresDialect } from 'kysely';
import type pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteIdentifier } from '../db.js';
import { createPostgresStore } from '../postgres-store.js';
import { type AppInstance, appInstance, appPool, openBrowser, tidingsTables } from '../test-support/app-instances.js';
import { generatePrismaClient } from '../test-support/prisma-client.js';
import { dropSchema, randomSchema, testDatabaseUrl } from '../test-support/test-database.js';
import { drizzleTransaction } from './drizzle.js';
import { knexTransaction } from './knex.js';
import { kyselyTransaction } from './kysely.js';
import { postgresJsTransaction } from './postgres-js.js';
import { prismaTransaction } from './prisma.js';

/**
 * Each library's transaction, node-postgres's own client included, carries a send through its
 * adapter: on commit the browser's stream, the webhook receiver and the push service each get
 * it once; after a rollback (a thrown error, a constraint that fails after the send, the
 * library's own rollback) none of them gets anything and the Idempotency-Key is free again
 * (docs/transactions.md).
 */
const schema = randomSchema('tidings_adapters');
const orders = `${quoteIdentifier(`${schema}_app`)}.orders`;
let pool: pg.Pool;
let one: AppInstance & { store: Store };
let tables: ReturnType<typeof tidingsTables>;
let pushService: TestPushService;
let receiver: TestWebhookReceiver;

const sqlJs = postgres(testDatabaseUrl, { max: 2, onnotice: () => {} });
const kysely = new Kysely<Record<string, never>>({
  dialect: new PostgresDialect({ pool: () => Promise.resolve(appPool()) }),
});
const knexDb: Knex = knex({ client: 'pg', connection: testDatabaseUrl, pool: { min: 0, max: 2 } });
const drizzlePg = () => drizzleNodePostgres(pool);
const drizzleJs = drizzlePostgresJs(sqlJs);
// Generated in beforeAll (prisma generate), its Order model on the app's orders table.
let prisma: Awaited<ReturnType<typeof generatePrismaClient>>;

beforeAll(async () => {
  pool = appPool();
  await pool.query(`CREATE SCHEMA ${quoteIdentifier(`${schema}_app`)}`);
  await pool.query(`CREATE TABLE ${orders} (id text PRIMARY KEY)`);
  pushService = await startTestPushService({ closeAfterTest: false });
  receiver = await startWebhookReceiver({ closeAfterTest: false });
  const store = await createPostgresStore({ connectionString: testDatabaseUrl, schema });
  one = await appInstance(schema, 'adapters-app', { store, ...localDeliveries() });
  tables = tidingsTables(pool, schema);
  prisma = await generatePrismaClient(testDatabaseUrl, `${schema}_app`);
  const project = await one.tidings.project();
  const endpoint = await one.tidings.admin.createWebhookEndpoint({
    projectId: project.id,
    url: receiver.endpointUrl('adapters'),
    events: ['notification.attempt.updated'],
  });
  receiver.setSecret('adapters', endpoint.secret!);
});
afterAll(async () => {
  await one.close();
  await sqlJs.end();
  await kysely.destroy();
  await knexDb.destroy();
  await prisma?.remove();
  await pushService.close();
  await receiver.close();
  await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(`${schema}_app`)} CASCADE`);
  await pool.end();
  await dropSchema(schema);
});

/** How the application's transaction ends once it has inserted its order and sent. */
type Ending = 'commit' | 'a thrown error' | 'a constraint that fails after the send' | 'the library’s own rollback';

/**
 * Runs, in one transaction of the library: the application's insert of `orderId`, `send` with
 * the adapter's transaction, then `ending`.
 */
type InLibrary = (
  orderId: string,
  send: (transaction: PostgresTransaction) => Promise<void>,
  ending: Ending,
) => Promise<void>;

/**
 * The end of the transaction, once the order is inserted and the send made: nothing (commit), an
 * error, the same insert again (a primary key violated after the send), or `rollback`.
 */
async function end(ending: Ending, insertAgain: () => Promise<unknown>, rollback?: () => Promise<unknown>) {
  if (ending === 'a thrown error') throw new Error('the order failed');
  if (ending === 'a constraint that fails after the send') await insertAgain();
  if (ending === 'the library’s own rollback') await rollback!();
}

interface Library {
  name: string;
  run: InLibrary;
  /** Whether the library rolls back by a call of its own, not only by a thrown error. */
  ownRollback: boolean;
}

const libraries: Library[] = [
  {
    name: 'node-postgres (a client inside BEGIN)',
    ownRollback: true,
    async run(orderId, send, ending) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const insert = () => client.query(`INSERT INTO ${orders} (id) VALUES ($1)`, [orderId]);
        await insert();
        await send(client);
        let rolledBack = false;
        await end(ending, insert, async () => {
          await client.query('ROLLBACK');
          rolledBack = true;
        });
        if (!rolledBack) await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
  },
  {
    name: 'postgres.js (sql.begin)',
    ownRollback: false,
    async run(orderId, send, ending) {
      await sqlJs.begin(async (tx) => {
        const insert = () => tx.unsafe(`INSERT INTO ${orders} (id) VALUES ($1)`, [orderId]);
        await insert();
        await send(postgresJsTransaction(tx));
        await end(ending, insert);
      });
    },
  },
  {
    name: 'Kysely',
    ownRollback: false,
    async run(orderId, send, ending) {
      await kysely.transaction().execute(async (trx) => {
        const insert = () => kyselySql`INSERT INTO ${kyselySql.raw(orders)} (id) VALUES (${orderId})`.execute(trx);
        await insert();
        await send(kyselyTransaction(trx));
        await end(ending, insert);
      });
    },
  },
  {
    name: 'Knex',
    ownRollback: true,
    async run(orderId, send, ending) {
      await knexDb.transaction(async (trx) => {
        const insert = () => trx.raw(`INSERT INTO ${orders} (id) VALUES (?)`, [orderId]);
        await insert();
        await send(knexTransaction(trx));
        await end(ending, insert, () => trx.rollback(new Error('rolled back by the application')));
      });
    },
  },
  {
    name: 'Prisma (prisma.$transaction)',
    ownRollback: false,
    async run(orderId, send, ending) {
      await prisma.prisma.$transaction(async (tx) => {
        // The app's write through its model, then the send through the same transaction.
        const insert = () => tx.order.create({ data: { id: orderId } });
        await insert();
        await send(prismaTransaction(tx));
        await end(ending, insert);
      });
    },
  },
  {
    name: 'Drizzle on node-postgres',
    ownRollback: true,
    async run(orderId, send, ending) {
      await drizzlePg().transaction(async (tx) => {
        const insert = () => tx.execute(drizzleSql`INSERT INTO ${drizzleSql.raw(orders)} (id) VALUES (${orderId})`);
        await insert();
        await send(drizzleTransaction(tx));
        await end(ending, insert, async () => tx.rollback());
      });
    },
  },
  {
    name: 'Drizzle on postgres.js',
    ownRollback: true,
    async run(orderId, send, ending) {
      await drizzleJs.transaction(async (tx) => {
        const insert = () => tx.execute(drizzleSql`INSERT INTO ${drizzleSql.raw(orders)} (id) VALUES (${orderId})`);
        await insert();
        await send(drizzleTransaction(tx));
        await end(ending, insert, async () => tx.rollback());
      });
    },
  },
];

/**
 * A recipient with two browsers: one with its stream open, and one whose stream has closed but
 * whose push subscription is at the tests' push service, so the send is pushed to it.
 */
async function recipientWithTwoBrowsers() {
  const streaming = await openBrowser(one);
  const closed = await openBrowser(one, streaming.recipient);
  const pushes = await subscribeThenClose(one.store, pushService, closed);
  return { streaming, closed, pushes };
}

/** The webhook messages the receiver verified about `notificationId`, as `attempt-id status`. */
function webhooksAbout(notificationId: string) {
  return receiver
    .receivedBy('adapters')
    .filter((message) => message.data.notification_id === notificationId)
    .map((message) => {
      const attempt = message.data.attempt as { id: string; status: string };
      return `${attempt.id} ${attempt.status}`;
    });
}

const orderRows = async (orderId: string) =>
  (await pool.query(`SELECT count(*)::int AS n FROM ${orders} WHERE id = $1`, [orderId])).rows[0].n as number;

describe.each(libraries)('a send through a transaction of $name', ({ name, run, ownRollback }) => {
  const tag = name.replace(/\W+/g, '-');

  it('is delivered once on commit to the stream, the webhook receiver and the push service', async () => {
    const project = await one.tidings.project();
    const { streaming, closed, pushes } = await recipientWithTwoBrowsers();
    const before = await tables.usage(project.id);
    let notificationId = '';
    await run(
      `${tag}-commit`,
      async (transaction) => {
        const sent = await one.tidings.notifications.send(
          { recipient: streaming.recipient, title: `Committed by ${name}`, data: { tag } },
          { transaction, idempotencyKey: `${tag}-commit` },
        );
        notificationId = sent.notification.id;
        expect(sent.notification.attempts).toHaveLength(2);
      },
      'commit',
    );
    expect(await orderRows(`${tag}-commit`)).toBe(1);
    await streaming.stream.until(() => streaming.titles().length === 1);
    await until(() => pushes().length === 1, { what: 'the push' });
    await until(() => webhooksAbout(notificationId).length > 0, { what: 'the webhook message' });
    await quietPeriod(600, 'a second delivery');
    expect(streaming.titles()).toEqual([`Committed by ${name}`]);
    expect(pushes()).toHaveLength(1);
    expect(pushes()[0]!.payload).toContain(notificationId);
    // A stream's write is no event (docs/webhooks.md); the push service's acceptance is one.
    const found = await one.store.getNotification({ projectId: project.id, id: notificationId });
    const pushed = found!.attempts.find((attempt) => attempt.browserId === closed.browserId)!;
    expect(webhooksAbout(notificationId)).toEqual([`${pushed.id} sent`]);
    expect(await tables.usage(project.id)).toBe(before + 1);
    expect(await tables.keyRecords(`${tag}-commit`)).toBe(1);
    const again = await one.tidings.notifications.send(
      { recipient: streaming.recipient, title: `Committed by ${name}`, data: { tag } },
      { idempotencyKey: `${tag}-commit` },
    );
    expect(again.replayed).toBe(true);
  });

  const endings: Ending[] = ['a thrown error', 'a constraint that fails after the send'];
  if (ownRollback) endings.push('the library’s own rollback');
  it.each(endings)('leaves no trace after %s', async (ending) => {
    const project = await one.tidings.project();
    const { streaming, pushes } = await recipientWithTwoBrowsers();
    const before = await tables.usage(project.id);
    const orderId = `${tag}-${ending.replace(/\W+/g, '-')}`;
    let notificationId = '';
    await run(
      orderId,
      async (transaction) => {
        const sent = await one.tidings.notifications.send(
          { recipient: streaming.recipient, title: 'Never' },
          { transaction, idempotencyKey: orderId },
        );
        notificationId = sent.notification.id;
      },
      ending,
    ).catch(() => undefined);
    expect(notificationId).not.toBe('');
    expect(await orderRows(orderId)).toBe(0);
    await quietPeriod(LOCAL_PUSH.graceMs + 800, 'a delivery of a rolled-back send');
    expect(streaming.titles()).toEqual([]);
    expect(pushes()).toEqual([]);
    expect(webhooksAbout(notificationId)).toEqual([]);
    expect(await tables.notificationsTo(streaming.recipient)).toBe(0);
    expect(await tables.keyRecords(orderId)).toBe(0);
    expect(await tables.usage(project.id)).toBe(before);
    const retried = await one.tidings.notifications.send(
      { recipient: streaming.recipient, title: 'Sent again' },
      { idempotencyKey: orderId },
    );
    expect(retried.replayed).toBe(false);
  });
});

describe('prismaTransaction', () => {
  it('refuses the PrismaClient itself, whose statements would each commit alone, and what is no client', async () => {
    expect(() => prismaTransaction(prisma.prisma as never)).toThrow(
      'prismaTransaction takes the transaction client `tx` of prisma.$transaction(async (tx) => …), not the PrismaClient',
    );
    expect(() => prismaTransaction({} as never)).toThrow(
      'prismaTransaction takes the client of prisma.$transaction(async (tx) => …)',
    );
  });
});
