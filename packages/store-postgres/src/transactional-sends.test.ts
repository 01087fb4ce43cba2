import {
  createTidings,
  inbox,
  requestLog,
  type SendResult,
  silentLogger,
  TidingsError,
  type TidingsOptions,
} from '@tidings/core';
import { webPush } from '@tidings/core/node';
import { quietPeriod, transactionalSendConformance, until } from '@tidings/core/testing';
import { readEvents } from '@tidings/test-support/sse-client.js';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { quoteIdentifier } from './db.js';
import { createPostgresStore } from './postgres-store.js';
import { type AppInstance, appInstance, openBrowser } from './test-support/app-instances.js';
import { dropSchema, randomSchema, testDatabaseUrl } from './test-support/test-database.js';
import { sendsChannel } from './transactional-sends.js';

/**
 * Sends through the application's own PostgreSQL transaction (docs/transactions.md): Tidings'
 * tables in a schema of the application's database, the application's node-postgres client
 * inside BEGIN, and instances that hear of a commit through `pg_notify`.
 */
const schema = randomSchema('tidings_tx');
const appSchema = quoteIdentifier(`${schema}_app`);
let app: pg.Pool;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  app = new pg.Pool({ connectionString: testDatabaseUrl, max: 4 });
  await app.query(`CREATE SCHEMA ${appSchema}`);
  await app.query(`CREATE TABLE ${appSchema}.orders (id text PRIMARY KEY, total int NOT NULL CHECK (total > 0))`);
});
afterEach(async () => {
  for (const instance of open.splice(0).reverse()) await instance.close();
});
afterAll(async () => {
  await app.query(`DROP SCHEMA IF EXISTS ${appSchema} CASCADE`);
  await app.end();
  await dropSchema(schema);
});

/** An instance of the application, closed after the test. */
async function instance(project = 'tx-app', extra: Partial<TidingsOptions> = {}) {
  const made = await appInstance(schema, project, extra);
  open.push(made);
  return made;
}
const browser = openBrowser;
let keys = 0;

/** The application's own work and a send, in one transaction of its node-postgres client. */
async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await app.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

const t = (table: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
async function count(table: string, where = 'true', values: unknown[] = []): Promise<number> {
  const { rows } = await app.query(`SELECT count(*)::int AS n FROM ${t(table)} WHERE ${where}`, values);
  return rows[0].n;
}
async function usage(projectId: string): Promise<number> {
  const { rows } = await app.query(
    `SELECT coalesce(sum(notifications), 0)::int AS n FROM ${t('usage_days')} WHERE project_id = $1`,
    [projectId],
  );
  return rows[0].n;
}

describe('a send through the application’s node-postgres transaction', () => {
  it('is delivered once on commit, with its usage, and answers as POST /v1/notifications would', async () => {
    const one = await instance();
    const project = await one.tidings.project();
    const target = await browser(one);
    const before = await usage(project.id);
    const sent = await inTransaction(async (client) => {
      await client.query(`INSERT INTO ${appSchema}.orders (id, total) VALUES ('o-1', 10)`);
      const result = await one.tidings.notifications.send(
        { recipient: target.recipient, title: 'Order o-1 paid' },
        { transaction: client, idempotencyKey: 'order-o-1' },
      );
      // Not before the commit: the stream has nothing yet.
      await quietPeriod(100, 'a delivery before the commit');
      expect(target.titles()).toEqual([]);
      return result;
    });
    expect(sent.replayed).toBe(false);
    expect(sent.notification).toMatchObject({ object: 'notification', recipient: target.recipient, mode: 'live' });
    expect(sent.notification.attempts).toHaveLength(1);
    await target.stream.until(() => target.titles().length === 1);
    await quietPeriod(200, 'a second delivery');
    expect(target.titles()).toEqual(['Order o-1 paid']);
    expect(await usage(project.id)).toBe(before + 1);
    // The key answers with the committed result, in process and over HTTP alike.
    const again = await one.tidings.notifications.send(
      { recipient: target.recipient, title: 'Order o-1 paid' },
      { idempotencyKey: 'order-o-1' },
    );
    expect(again).toEqual({ notification: sent.notification, replayed: true } satisfies SendResult);
  });

  it('refuses as the route does, with typed errors, and writes nothing for a refusal', async () => {
    const one = await instance();
    await inTransaction(async (client) => {
      const refused = one.tidings.notifications.send(
        { recipient: 'nobody-here', title: 'x' },
        { transaction: client, idempotencyKey: 'k-none' },
      );
      await expect(refused).rejects.toBeInstanceOf(TidingsError);
      await expect(refused).rejects.toMatchObject({ code: 'NO_CONNECTED_BROWSER', status: 409 });
      await expect(
        one.tidings.notifications.send({ recipient: 'r', title: '' }, { transaction: client }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ path: 'title' }],
      });
      await expect(
        one.tidings.notifications.send({ recipient: 'r', title: 'x' }, { transaction: client, idempotencyKey: 'é' }),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    });
    // The application committed after the refusal: the key stays free.
    expect(await count('idempotency_keys', 'key = $1', ['k-none'])).toBe(0);
    const target = await browser(one);
    await inTransaction((client) =>
      one.tidings.notifications.send(
        { recipient: target.recipient, title: 'A' },
        { transaction: client, idempotencyKey: 'k-m' },
      ),
    );
    await expect(
      inTransaction((client) =>
        one.tidings.notifications.send(
          { recipient: target.recipient, title: 'B' },
          { transaction: client, idempotencyKey: 'k-m' },
        ),
      ),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_MISMATCH' });
  });

  it('keeps its statements prepared on a node-postgres client, as the store does on its own', async () => {
    const one = await instance();
    const target = await browser(one);
    const prepared = await inTransaction(async (client) => {
      await one.tidings.notifications.send(
        { recipient: target.recipient, title: 'Prepared' },
        { transaction: client, idempotencyKey: `prepared-${keys++}` },
      );
      const { rows } = await client.query('SELECT name FROM pg_prepared_statements');
      return rows.map((row: { name: string }) => row.name);
    });
    for (const name of ['send_claim', 'send_record_one', 'send_result']) {
      expect(prepared.some((statement) => statement.endsWith(`_${name}`))).toBe(true);
    }
    expect(prepared).toContain(`${sendsChannel(schema)}_signal`);
    await target.stream.until(() => target.titles().length === 1);
  });

  it('reaches a stream held by another instance at the commit', async () => {
    const one = await instance();
    const two = await instance();
    const target = await browser(two);
    await inTransaction((client) =>
      one.tidings.notifications.send({ recipient: target.recipient, title: 'Across' }, { transaction: client }),
    );
    await target.stream.until(() => target.titles().length === 1);
    await quietPeriod(200, 'a second delivery');
    expect(target.titles()).toEqual(['Across']);
  });

  it('delivers a send committed while its listening connection was lost, once it is back', async () => {
    const one = await instance();
    const target = await browser(one);
    const channel = sendsChannel(schema);
    // The instance listens from a connection it opens as it starts: wait for it, then end it.
    const listening = await until(
      async () =>
        (await app.query('SELECT pid FROM pg_stat_activity WHERE query = $1', [`LISTEN ${channel}`])).rows.map(
          (row: { pid: number }) => row.pid,
        ),
      { accept: (pids) => pids.length > 0, what: 'the listening connection' },
    );
    await app.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [listening]);
    await inTransaction((client) =>
      one.tidings.notifications.send({ recipient: target.recipient, title: 'While deaf' }, { transaction: client }),
    );
    await target.stream.until(() => target.titles().length === 1, 5_000);
    expect(target.titles()).toEqual(['While deaf']);
  });

  it('delivers a send committed while no instance ran once one starts', async () => {
    const first = await instance();
    const target = await browser(first);
    await first.close();
    open.splice(open.indexOf(first), 1);
    // No instance runs: a store alone records the send in the application's transaction.
    const store = await createPostgresStore({ connectionString: testDatabaseUrl, schema });
    const writer = createTidings({ store, project: 'tx-app', logger: silentLogger, sweepIntervalMs: 0 });
    await inTransaction((client) =>
      writer.notifications.send({ recipient: target.recipient, title: 'While down' }, { transaction: client }),
    );
    await writer.close();
    await store.close();
    const next = await instance();
    // The page comes back with its last event id: the same browser resumes on the new instance.
    const token = await next.tidings.createConnectToken({ recipient: target.recipient });
    const resumed = readEvents(
      await next.request(`/v1/connect/${token.token}`, { headers: { 'Last-Event-ID': `${target.browserId}.0` } }),
    );
    await resumed.until(() => resumed.events.some((event) => event.event === 'notification'));
    expect(resumed.events.filter((e) => e.event === 'notification').map((e) => JSON.parse(e.data).title)).toEqual([
      'While down',
    ]);
  });

  it('serializes two sends with one key across transactions: one creates, the other replays', async () => {
    const one = await instance();
    const target = await browser(one);
    const results = await Promise.all(
      [0, 1].map(() =>
        inTransaction((client) =>
          one.tidings.notifications.send(
            { recipient: target.recipient, title: 'Once' },
            { transaction: client, idempotencyKey: 'twice' },
          ),
        ).catch((error: TidingsError) => error.code),
      ),
    );
    // In one process the second is refused while the first runs, as over HTTP.
    expect(results.filter((r) => typeof r === 'object' && (r as SendResult).replayed === false)).toHaveLength(1);
    await until(() => target.titles().length === 1);
    await quietPeriod(200, 'a second delivery');
    expect(target.titles()).toEqual(['Once']);
  });
});

describe('the project an application names', () => {
  it('is one project for instances that start together and for those that start later', async () => {
    const name = `converging-${randomSchema('p')}`;
    const started = await Promise.all([0, 1, 2, 3].map(() => instance(name)));
    const projects = await Promise.all(started.map((one) => one.tidings.project()));
    expect(new Set(projects.map((project) => project.id)).size).toBe(1);
    expect(projects[0]).toMatchObject({ name, suspended: false });
    expect(await count('projects', 'name = $1', [name])).toBe(1);
    for (const one of started) await one.close();
    open.splice(0);
    const restarted = await instance(name);
    expect((await restarted.tidings.project()).id).toBe(projects[0]!.id);
    // Sends and tokens need no key and no project id.
    const target = await browser(restarted);
    const sent = await restarted.tidings.notifications.send({ recipient: target.recipient, title: 'Keyless' });
    expect(sent.notification.attempts).toHaveLength(1);
    await target.stream.until(() => target.titles().includes('Keyless'));
  });

  it('is refused when it is no name, and a send names a project when the instance names none', async () => {
    const store = await createPostgresStore({ connectionString: testDatabaseUrl, schema });
    try {
      expect(() => createTidings({ store, project: ' ' })).toThrow(/project must be a name of 1 to 100 characters/);
      const anonymous = createTidings({ store, logger: silentLogger, sweepIntervalMs: 0 });
      await expect(anonymous.notifications.send({ recipient: 'r', title: 'x' })).rejects.toThrow(/Name the project/);
      await expect(anonymous.project()).rejects.toThrow(/names no project/);
      await expect(
        anonymous.notifications.send({ recipient: 'r', title: 'x' }, { projectId: 'proj_00000000000000000000000000' }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await anonymous.close();
    } finally {
      await store.close();
    }
  });
});

describe('the push jobs of a send through the application’s transaction', () => {
  it('exist once the transaction commits, and not after a rollback', async () => {
    // The push jobs are looked at, never run.
    const pushing = await instance('tx-app', {
      features: [inbox(), requestLog(), webPush({ vapidSubject: 'mailto:ops@example.com' })],
      jobs: false,
    });
    const { store, tidings } = pushing;
    const target = await browser(pushing);
    const saved = await store.putPushSubscription({
      browserId: target.browserId,
      endpoint: 'https://fcm.googleapis.com/fcm/send/tx-test',
      p256dh: `B${'A'.repeat(86)}`,
      auth: 'A'.repeat(22),
      expiresAt: null,
      now: Date.now(),
    });
    expect(saved.kind).toBe('saved');
    const pushJobs = () => count('jobs', "kind = 'push'");
    const before = await pushJobs();
    await expect(
      inTransaction(async (client) => {
        await tidings.notifications.send({ recipient: target.recipient, title: 'Never' }, { transaction: client });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await pushJobs()).toBe(before);
    await inTransaction((client) =>
      tidings.notifications.send({ recipient: target.recipient, title: 'Pushed' }, { transaction: client }),
    );
    expect(await pushJobs()).toBe(before + 1);
    await target.stream.until(() => target.titles().includes('Pushed'));
    expect(target.titles()).toEqual(['Pushed']);
  });
});

describe('the transactional-send cases every store passes', () => {
  let kit: AppInstance;
  let orders = 0;
  beforeAll(async () => {
    kit = await appInstance(schema, 'tx-kit');
  });
  afterAll(async () => {
    await kit.close();
  });
  /** The application's ways of ending a transaction that holds a send without committing it. */
  const rollbacks: Record<string, (client: pg.PoolClient) => Promise<void>> = {
    'a thrown error': async () => {
      throw new Error('payment failed');
    },
    'a failed constraint after the send': async (client) => {
      await client.query(`INSERT INTO ${appSchema}.orders (id, total) VALUES ('o-bad', -1)`);
    },
  };
  transactionalSendConformance(() => ({
    tidings: kit.tidings,
    browser: () => openBrowser(kit),
    async commit(input, options = {}) {
      const client = await app.connect();
      try {
        await client.query('BEGIN');
        await client.query(`INSERT INTO ${appSchema}.orders (id, total) VALUES ($1, 1)`, [`kit-${orders++}`]);
        const sent = await kit.tidings.notifications.send(input, { ...options, transaction: client }).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
        await client.query('COMMIT');
        if ('error' in sent) throw sent.error;
        return sent.result;
      } finally {
        client.release();
      }
    },
    rollbacks: [...Object.keys(rollbacks), 'an explicit ROLLBACK'],
    async rollBack(how, input, options) {
      if (how === 'an explicit ROLLBACK') {
        const client = await app.connect();
        try {
          await client.query('BEGIN');
          await kit.tidings.notifications.send(input, { ...options, transaction: client });
          await client.query('ROLLBACK');
        } finally {
          client.release();
        }
        return;
      }
      await expect(
        inTransaction(async (client) => {
          await kit.tidings.notifications.send(input, { ...options, transaction: client });
          await rollbacks[how]!(client);
        }),
      ).rejects.toThrow();
    },
    usage,
    keyRecords: (key) => count('idempotency_keys', 'key = $1', [key]),
  }));
});
