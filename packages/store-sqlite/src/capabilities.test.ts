import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings, type Metrics, noopMetrics, silentLogger } from '@tidings/core';
import { readEvents } from '@tidings/test-support/sse-client.js';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite-store.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('the SQLite store’s capabilities', () => {
  it('are kept whole by an instance with metrics: a send through the app’s transaction is timed and delivered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-capabilities-'));
    const path = join(dir, 'app.db');
    const store = createSqliteStore({ path });
    const timed: string[] = [];
    const metrics: Metrics = { ...noopMetrics, storeOperation: (name) => timed.push(name) };
    const tidings = createTidings({
      store,
      project: 'capabilities',
      logger: silentLogger,
      sweepIntervalMs: 0,
      metrics,
    });
    const app = new Database(path);
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    cleanup.push(() => store.close());
    cleanup.push(async () => app.close());
    cleanup.push(() => tidings.close());
    expect(store.capabilities.transactions.dialect).toBe('sqlite');
    expect(store.capabilities.database.connection).toBeInstanceOf(Database);

    const token = await tidings.createConnectToken({ recipient: 'ada' });
    const stream = readEvents(await tidings.fetch(new Request(`http://tidings.test/v1/connect/${token.token}`)));
    await stream.next('ready');
    const prepared = await tidings.notifications.prepare({ recipient: 'ada', title: 'Paid' });
    const sent = app.transaction(() => tidings.notifications.sendSync(prepared, { transaction: app }))();
    expect(JSON.parse((await stream.next('notification')).data)).toMatchObject({
      notification_id: sent.notification.id,
      title: 'Paid',
    });
    // The instance's store is the one the metrics wrap: its reads are timed.
    expect(timed).toContain('getProject');
  });
});
