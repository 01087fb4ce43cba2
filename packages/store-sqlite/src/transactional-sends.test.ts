import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings, silentLogger, type Tidings } from '@tidings/core';
import { quietPeriod, transactionalSendConformance, until } from '@tidings/core/testing';
import { LOCAL_PUSH, localDeliveries, subscribeThenClose } from '@tidings/test-support/local-deliveries.js';
import { startTestPushService, type TestPushService } from '@tidings/test-support/push-service.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { startWebhookReceiver, type TestWebhookReceiver } from '@tidings/test-support/webhook-receiver.js';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite-store.js';

/**
 * Sends through the application's own better-sqlite3 transaction, on the store's file
 * (docs/transactions.md): delivered once the transaction has committed (to the stream, the
 * webhook receiver and the push service, once each), never after a rollback.
 */
let pushService: TestPushService;
let receiver: TestWebhookReceiver;
let dir: string;
let app: Database.Database;
let store: ReturnType<typeof createSqliteStore>;
let tidings: Tidings;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tidings-tx-'));
  const path = join(dir, 'app.db');
  store = createSqliteStore({ path });
  pushService = await startTestPushService({ closeAfterTest: false });
  receiver = await startWebhookReceiver({ closeAfterTest: false });
  tidings = createTidings({
    store,
    project: 'sqlite-app',
    logger: silentLogger,
    sweepIntervalMs: 0,
    ...localDeliveries(),
  });
  const endpoint = await tidings.admin.createWebhookEndpoint({
    projectId: (await tidings.project()).id,
    url: receiver.endpointUrl('sqlite'),
    events: ['notification.attempt.updated'],
  });
  receiver.setSecret('sqlite', endpoint.secret!);
  app = new Database(path);
  app.pragma('busy_timeout = 5000');
  app.exec('CREATE TABLE orders (id TEXT PRIMARY KEY, total INTEGER NOT NULL CHECK (total > 0))');
});
afterAll(async () => {
  await tidings.close();
  await pushService.close();
  await receiver.close();
  app.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let recipients = 0;
/** A browser's stream, opened in process, for `recipient`. */
async function openStream(recipient: string) {
  const token = await tidings.createConnectToken({ recipient });
  const stream = readEvents(
    await tidings.fetch(new Request(`http://tidings.test/v1/connect/${token.token}`), { clientAddress: '203.0.113.4' }),
  );
  const ready = JSON.parse((await stream.next('ready')).data) as { browser_id: string };
  return { stream, browserId: ready.browser_id };
}

/**
 * A recipient with two browsers: one with its stream open, and one whose stream has closed but
 * whose push subscription is at the tests' push service.
 */
async function browser() {
  const recipient = `user-${recipients++}`;
  const { stream } = await openStream(recipient);
  const pushes = await subscribeThenClose(store, pushService, await openStream(recipient));
  const titles = () =>
    stream.events.filter((event) => event.event === 'notification').map((event) => JSON.parse(event.data).title);
  /** The webhook messages about this recipient's notifications. */
  const webhooks = () => receiver.receivedBy('sqlite').filter((message) => message.data.recipient === recipient);
  return { recipient, stream, titles, pushes, webhooks };
}

const usage = (projectId: string) =>
  app
    .prepare('SELECT coalesce(sum(notifications), 0) FROM usage_days WHERE project_id = ?')
    .pluck()
    .get(projectId) as number;
const keyRecords = (key: string) =>
  app.prepare('SELECT count(*) FROM idempotency_keys WHERE key = ?').pluck().get(key) as number;

describe('a send through the application’s better-sqlite3 transaction', () => {
  it('is delivered once after the commit, with its usage', async () => {
    const project = await tidings.project();
    const target = await browser();
    const before = usage(project.id);
    const prepared = await tidings.notifications.prepare(
      { recipient: target.recipient, title: 'Order paid' },
      { idempotencyKey: 'sqlite-order-1' },
    );
    const sent = app.transaction(() => {
      app.prepare("INSERT INTO orders (id, total) VALUES ('o-1', 5)").run();
      return tidings.notifications.sendSync(prepared, { transaction: app });
    })();
    expect(sent.replayed).toBe(false);
    expect(sent.notification).toMatchObject({ object: 'notification', recipient: target.recipient });
    await target.stream.until(() => target.titles().length === 1);
    await until(() => target.pushes().length === 1 && target.webhooks().length === 1, {
      what: 'the push and the webhook message',
    });
    await quietPeriod(LOCAL_PUSH.graceMs + 600, 'a second delivery');
    expect(target.titles()).toEqual(['Order paid']);
    expect(target.pushes()).toHaveLength(1);
    expect(target.pushes()[0]!.payload).toContain(sent.notification.id);
    // A stream's write is no event; the push service's acceptance is one.
    expect(target.webhooks().map((message) => message.data.notification_id)).toEqual([sent.notification.id]);
    expect(usage(project.id)).toBe(before + 1);
    // The key answers with what the transaction committed.
    const again = await tidings.notifications.send(
      { recipient: target.recipient, title: 'Order paid' },
      { idempotencyKey: 'sqlite-order-1' },
    );
    expect(again).toEqual({ notification: sent.notification, replayed: true });
    // A prepared send is used once.
    expect(() => app.transaction(() => tidings.notifications.sendSync(prepared, { transaction: app }))()).toThrow(
      /used once/,
    );
  });

  it('delivers a send committed by a transaction begun by hand', async () => {
    const target = await browser();
    const prepared = await tidings.notifications.prepare({ recipient: target.recipient, title: 'By hand' });
    app.exec('BEGIN');
    tidings.notifications.sendSync(prepared, { transaction: app });
    app.exec('COMMIT');
    await target.stream.until(() => target.titles().length === 1);
    await quietPeriod(200, 'a second delivery');
    expect(target.titles()).toEqual(['By hand']);
  });

  it('refuses bad input with the route’s errors, and a send outside a transaction', async () => {
    await expect(tidings.notifications.prepare({ recipient: 'r', title: '' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    const prepared = await tidings.notifications.prepare({ recipient: 'nobody', title: 'x' });
    expect(() => tidings.notifications.sendSync(prepared, { transaction: app })).toThrow(/inside a transaction/);
    expect(() => app.transaction(() => tidings.notifications.sendSync(prepared, { transaction: app }))()).toThrow(
      expect.objectContaining({ code: 'NO_CONNECTED_BROWSER' }),
    );
    const elsewhere = new Database(join(dir, 'other.db'));
    try {
      const other = await tidings.notifications.prepare({ recipient: 'r', title: 'x' });
      expect(() =>
        elsewhere.transaction(() => tidings.notifications.sendSync(other, { transaction: elsewhere }))(),
      ).toThrow(/must be opened on the store's file/);
    } finally {
      elsewhere.close();
    }
    await expect(
      tidings.notifications.send(
        { recipient: 'r', title: 'x' },
        { transaction: { query: async () => ({ rows: [] }) } },
      ),
    ).rejects.toThrow(/prepare\(\) before it and sendSync\(\) inside it/);
  });
});

let orders = 0;
/** The application's ways of ending a transaction that holds a send without committing it. */
const rollbacks: Record<string, (prepared: Awaited<ReturnType<Tidings['notifications']['prepare']>>) => void> = {
  'a thrown error': (prepared) => {
    expect(() =>
      app.transaction(() => {
        tidings.notifications.sendSync(prepared, { transaction: app });
        throw new Error('payment failed');
      })(),
    ).toThrow('payment failed');
  },
  'a failed constraint after the send': (prepared) => {
    expect(() =>
      app.transaction(() => {
        tidings.notifications.sendSync(prepared, { transaction: app });
        app.prepare("INSERT INTO orders (id, total) VALUES ('bad', -1)").run();
      })(),
    ).toThrow(/CHECK constraint/);
  },
  'an explicit ROLLBACK of a transaction begun by hand': (prepared) => {
    app.exec('BEGIN');
    tidings.notifications.sendSync(prepared, { transaction: app });
    app.exec('ROLLBACK');
  },
};

transactionalSendConformance(() => ({
  tidings,
  async browser() {
    const target = await browser();
    return {
      recipient: target.recipient,
      titles: target.titles,
      elsewhere: () => [...target.pushes(), ...target.webhooks()],
    };
  },
  async commit(input, options = {}) {
    const prepared = await tidings.notifications.prepare(input, options);
    const outcome = app.transaction(() => {
      app.prepare('INSERT INTO orders (id, total) VALUES (?, 1)').run(`conformance-${orders++}`);
      try {
        return { sent: tidings.notifications.sendSync(prepared, { transaction: app }) };
      } catch (error) {
        return { error };
      }
    })();
    if ('error' in outcome) throw outcome.error;
    return outcome.sent;
  },
  rollbacks: Object.keys(rollbacks),
  async rollBack(how, input, options) {
    rollbacks[how]!(await tidings.notifications.prepare(input, options));
  },
  usage: async (projectId) => usage(projectId),
  keyRecords: async (key) => keyRecords(key),
  quietMs: LOCAL_PUSH.graceMs + 600,
}));
