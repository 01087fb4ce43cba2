import { createTidings, type Metrics, noopMetrics, silentLogger } from '@tidings/core';
import { readEvents } from '@tidings/test-support/sse-client.js';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from './postgres-store.js';
import { dropSchema, randomSchema, testDatabaseUrl } from './test-support/test-database.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('the PostgreSQL store’s capabilities', () => {
  it('are kept whole by an instance with metrics: a send through the app’s transaction is timed and delivered', async () => {
    const schema = randomSchema('tidings_capabilities');
    cleanup.push(() => dropSchema(schema));
    const store = await createPostgresStore({ connectionString: testDatabaseUrl, schema });
    cleanup.push(() => store.close());
    const timed: string[] = [];
    const metrics: Metrics = { ...noopMetrics, storeOperation: (name) => timed.push(name) };
    const tidings = createTidings({
      store,
      project: 'capabilities',
      logger: silentLogger,
      sweepIntervalMs: 0,
      metrics,
    });
    cleanup.push(() => tidings.close());
    expect(store.capabilities.transactions.dialect).toBe('postgres');
    expect(store.capabilities.database.schema).toBe(schema);

    const token = await tidings.createConnectToken({ recipient: 'ada' });
    const stream = readEvents(await tidings.fetch(new Request(`http://tidings.test/v1/connect/${token.token}`)));
    await stream.next('ready');
    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    cleanup.push(() => client.end());
    await client.query('BEGIN');
    const sent = await tidings.notifications.send({ recipient: 'ada', title: 'Paid' }, { transaction: client });
    await client.query('COMMIT');
    expect(JSON.parse((await stream.next('notification')).data)).toMatchObject({
      notification_id: sent.notification.id,
      title: 'Paid',
    });
    // The instance's store is the one the metrics wrap: its reads are timed.
    expect(timed).toContain('getProject');
  });
});
