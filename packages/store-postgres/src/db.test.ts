import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitWith, quoteIdentifier, rollBack, transaction } from './db.js';
import { dropSchema, randomSchema, testDatabaseUrl } from './test-support/test-database.js';

/**
 * A transaction of the store on both kinds of client: one that pipelines (the store's own pool)
 * and one that does not (a host's pool as node-postgres makes it by default). Both commit, roll
 * back and fail alike; only the first sends BEGIN before `work` starts without waiting for its
 * answer. Every test file also fails on a statement given to a busy client that does not
 * pipeline (test/support/no-pg-deprecations.ts), which node-postgres 9 will refuse.
 */
const schema = randomSchema('tidings_db');
const table = `${quoteIdentifier(schema)}.t`;
const pools = {
  pipelined: new pg.Pool({ connectionString: testDatabaseUrl, max: 1, pipeline: true }),
  'not pipelined': new pg.Pool({ connectionString: testDatabaseUrl, max: 1 }),
};

beforeAll(async () => {
  await pools.pipelined.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
  await pools.pipelined.query(`CREATE TABLE ${table} (id text PRIMARY KEY)`);
});
afterAll(async () => {
  await Promise.all(Object.values(pools).map((pool) => pool.end()));
  await dropSchema(schema);
});

const rows = async (pool: pg.Pool) => (await pool.query(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => r.id);

describe.each(Object.entries(pools))('a transaction on a client %s', (kind, pool) => {
  const insert = (client: pg.PoolClient, id: string) => () => client.query(`INSERT INTO ${table} VALUES ($1)`, [id]);

  it('commits what work did and the last statements with COMMIT', async () => {
    const value = await transaction(pool, async (client) => {
      await insert(client, `${kind}-a`)();
      return commitWith(client, [insert(client, `${kind}-b`), null, insert(client, `${kind}-c`)], 'done');
    });
    expect(value).toBe('done');
    expect(await rows(pool)).toEqual(expect.arrayContaining([`${kind}-a`, `${kind}-b`, `${kind}-c`]));
  });

  it('rolls everything back, and throws its error, when a last statement fails', async () => {
    const failing = transaction(pool, async (client) => {
      await insert(client, `${kind}-d`)();
      return commitWith(client, [insert(client, `${kind}-e`), insert(client, `${kind}-d`)], 'never');
    });
    await expect(failing).rejects.toThrow(/duplicate key/);
    expect(await rows(pool)).not.toEqual(expect.arrayContaining([`${kind}-d`]));
    expect(await rows(pool)).not.toEqual(expect.arrayContaining([`${kind}-e`]));
    // The client went back to the pool usable, outside any transaction.
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('ends with ROLLBACK on rollBack(), and rolls back on an error of work', async () => {
    expect(
      await transaction(pool, async (client) => {
        await insert(client, `${kind}-f`)();
        return rollBack('rolled back');
      }),
    ).toBe('rolled back');
    await expect(
      transaction(pool, async (client) => {
        await insert(client, `${kind}-g`)();
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await rows(pool)).not.toEqual(expect.arrayContaining([`${kind}-f`, `${kind}-g`]));
  });

  it(`starts work ${kind === 'pipelined' ? 'before' : 'once'} BEGIN is answered`, async () => {
    // The status of the last ReadyForQuery: idle before BEGIN's answer, in a transaction after.
    const status = await transaction(pool, async (client) => client.getTransactionStatus());
    expect(status).toBe(kind === 'pipelined' ? 'I' : 'T');
  });
});
