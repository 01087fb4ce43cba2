import type { PostgresTransaction } from '@tidings/core';
import { quietPeriod } from '@tidings/core/testing';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import knex, { type Knex } from 'knex';
import { Kysely, sql as kyselySql, PostgresDialect } from 'kysely';
import type pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteIdentifier } from '../db.js';
import { type AppInstance, appInstance, appPool, openBrowser, tidingsTables } from '../test-support/app-instances.js';
import { dropSchema, randomSchema, testDatabaseUrl } from '../test-support/test-database.js';
import { drizzleTransaction } from './drizzle.js';
import { knexTransaction } from './knex.js';
import { kyselyTransaction } from './kysely.js';
import { postgresJsTransaction } from './postgres-js.js';

/**
 * Each library's transaction, through its adapter, carries a send: delivered on commit, no
 * trace after a rollback (docs/transactions.md).
 */
const schema = randomSchema('tidings_adapters');
const orders = `${quoteIdentifier(`${schema}_app`)}.orders`;
let pool: pg.Pool;
let one: AppInstance;
let tables: ReturnType<typeof tidingsTables>;

const sqlJs = postgres(testDatabaseUrl, { max: 2, onnotice: () => {} });
const kysely = new Kysely<Record<string, never>>({
  dialect: new PostgresDialect({ pool: () => Promise.resolve(appPool()) }),
});
const knexDb: Knex = knex({ client: 'pg', connection: testDatabaseUrl, pool: { min: 0, max: 2 } });
const drizzlePg = () => drizzleNodePostgres(pool);
const drizzleJs = drizzlePostgresJs(sqlJs);

beforeAll(async () => {
  pool = appPool();
  await pool.query(`CREATE SCHEMA ${quoteIdentifier(`${schema}_app`)}`);
  await pool.query(`CREATE TABLE ${orders} (id text PRIMARY KEY)`);
  one = await appInstance(schema, 'adapters-app');
  tables = tidingsTables(pool, schema);
});
afterAll(async () => {
  await one.close();
  await sqlJs.end();
  await kysely.destroy();
  await knexDb.destroy();
  await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(`${schema}_app`)} CASCADE`);
  await pool.end();
  await dropSchema(schema);
});

/**
 * Runs `work` in a transaction of the library, with its own insert of `orderId` and the adapter's
 * transaction; the library commits, or rolls back when `work` throws.
 */
type InLibrary = (orderId: string, work: (transaction: PostgresTransaction) => Promise<void>) => Promise<void>;

const libraries: [string, InLibrary][] = [
  [
    'postgres.js (sql.begin)',
    async (orderId, work) => {
      await sqlJs.begin(async (tx) => {
        await tx.unsafe(`INSERT INTO ${orders} (id) VALUES ($1)`, [orderId]);
        await work(postgresJsTransaction(tx));
      });
    },
  ],
  [
    'Kysely',
    async (orderId, work) => {
      await kysely.transaction().execute(async (trx) => {
        await kyselySql`INSERT INTO ${kyselySql.raw(orders)} (id) VALUES (${orderId})`.execute(trx);
        await work(kyselyTransaction(trx));
      });
    },
  ],
  [
    'Knex',
    async (orderId, work) => {
      await knexDb.transaction(async (trx) => {
        await trx.raw(`INSERT INTO ${orders} (id) VALUES (?)`, [orderId]);
        await work(knexTransaction(trx));
      });
    },
  ],
  [
    'Drizzle on node-postgres',
    async (orderId, work) => {
      await drizzlePg().transaction(async (tx) => {
        await tx.execute(`INSERT INTO ${orders} (id) VALUES ('${orderId}')`);
        await work(drizzleTransaction(tx));
      });
    },
  ],
  [
    'Drizzle on postgres.js',
    async (orderId, work) => {
      await drizzleJs.transaction(async (tx) => {
        await tx.execute(`INSERT INTO ${orders} (id) VALUES ('${orderId}')`);
        await work(drizzleTransaction(tx));
      });
    },
  ],
];

describe.each(libraries)('a send through a transaction of %s', (name, inLibrary) => {
  const tag = name.replace(/\W+/g, '-');

  it('is delivered once on commit, with the idempotency key and the usage', async () => {
    const project = await one.tidings.project();
    const target = await openBrowser(one);
    const before = await tables.usage(project.id);
    await inLibrary(`${tag}-commit`, async (transaction) => {
      const sent = await one.tidings.notifications.send(
        { recipient: target.recipient, title: `Committed by ${name}`, data: { tag } },
        { transaction, idempotencyKey: `${tag}-commit` },
      );
      expect(sent.notification.attempts).toHaveLength(1);
    });
    await target.stream.until(() => target.titles().length === 1);
    await quietPeriod(150, 'a second delivery');
    expect(target.titles()).toEqual([`Committed by ${name}`]);
    expect(await tables.usage(project.id)).toBe(before + 1);
    expect(await tables.keyRecords(`${tag}-commit`)).toBe(1);
    const again = await one.tidings.notifications.send(
      { recipient: target.recipient, title: `Committed by ${name}`, data: { tag } },
      { idempotencyKey: `${tag}-commit` },
    );
    expect(again.replayed).toBe(true);
  });

  it('leaves no trace when the transaction rolls back', async () => {
    const project = await one.tidings.project();
    const target = await openBrowser(one);
    const before = await tables.usage(project.id);
    await expect(
      inLibrary(`${tag}-rollback`, async (transaction) => {
        await one.tidings.notifications.send(
          { recipient: target.recipient, title: 'Never' },
          { transaction, idempotencyKey: `${tag}-rollback` },
        );
        throw new Error('the order failed');
      }),
    ).rejects.toThrow('the order failed');
    await quietPeriod(200, 'a delivery of a rolled-back send');
    expect(target.titles()).toEqual([]);
    expect(await tables.notificationsTo(target.recipient)).toBe(0);
    expect(await tables.keyRecords(`${tag}-rollback`)).toBe(0);
    expect(await tables.usage(project.id)).toBe(before);
  });
});
