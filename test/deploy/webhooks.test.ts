import { createTidings } from '@tidings/core';
import { webhooks } from '@tidings/core/node';
import { quietPeriod, until } from '@tidings/core/testing';
import { createPostgresStore } from '@tidings/store-postgres';
import { assertBuilt } from '@tidings/test-support/cli-process.js';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type TestWebhookReceiver,
} from '@tidings/test-support/webhook-receiver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from './cluster.js';

/**
 * Webhooks from three `tidings serve` instances on one PostgreSQL schema: every instance runs
 * the webhook jobs, changes come through every instance, and the queue's claims hand each
 * message to one of them, in order per notification.
 */
const RECIPIENTS = 3;
const BROWSERS_PER_RECIPIENT = 2;
const SENDS = 12;

let cluster: Cluster;
let receiver: TestWebhookReceiver;
let liveKey: string;
let projectId: string;

beforeAll(async () => {
  assertBuilt();
  receiver = await startWebhookReceiver({ closeAfterTest: false });
  cluster = await startCluster(
    3,
    { limits: { perKey: 100_000, perProject: 100_000, perAccount: 100_000 }, staleBrowserMs: 600_000 },
    { serveArgs: ['--webhooks-allow-http', '--webhooks-allow-private'] },
  );
  const account = await cluster.cli<{ id: string }>(['account', 'create', '--email', 'ops@example.com', '--verified']);
  projectId = (await cluster.cli<{ id: string }>(['project', 'create', '--account', account.id, '--name', 'P'])).id;
  liveKey = (await cluster.cli<{ key: string }>(['key', 'create', '--project', projectId, '--mode', 'live'])).key;
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  await receiver?.close();
});

/** An endpoint at the receiver, made with the admin API of a back end's own process on the schema. */
async function endpoint(name: string, events: string[]) {
  const store = await createPostgresStore({ connectionString: cluster.db, maxConnections: 1 });
  const tidings = createTidings({ store, sweepIntervalMs: 0, jobs: false, features: [webhooks({ allowHttp: true })] });
  try {
    const created = await tidings.admin.createWebhookEndpoint({ projectId, url: receiver.endpointUrl(name), events });
    receiver.setSecret(name, created.secret!);
    return created;
  } finally {
    await tidings.close();
    await store.close();
  }
}

/** A request straight to instance `n` (not through nginx), so that each instance takes its share. */
function api(n: number, path: string, init: { method?: string; json?: unknown; key?: string | null } = {}) {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers.Authorization = `Bearer ${liveKey}`;
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  const instance = cluster.instances[n % cluster.instances.length]!;
  return fetch(`${instance.url}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

describe('three instances deliver webhooks', () => {
  it('deliver every message exactly once, in order per notification, whichever instance made the change', async () => {
    await endpoint('all', ['*']);
    const browsers = new Map<string, { recipient: string; secret: string }>();
    let n = 0;
    for (let r = 0; r < RECIPIENTS; r++) {
      const recipient = `r${r}`;
      const token = (await (await api(n++, '/v1/connect-tokens', { json: { recipient } })).json()).token;
      for (let b = 0; b < BROWSERS_PER_RECIPIENT; b++) {
        const registered = await api(n++, `/v1/connect/${token}`, { method: 'POST', key: null });
        expect(registered.status).toBe(201);
        const body = await registered.json();
        browsers.set(body.browser_id, { recipient, secret: body.browser_secret });
      }
    }

    const sends = await Promise.all(
      Array.from({ length: SENDS }, async (_, s) => {
        const response = await api(s, '/v1/notifications', {
          json: { recipient: `r${s % RECIPIENTS}`, title: `n${s}` },
        });
        expect(response.status).toBe(201);
        return (await response.json()) as { id: string; attempts: { id: string; browser_id: string }[] };
      }),
    );
    const receipt = (s: number, attempt: { id: string; browser_id: string }, type: string) =>
      api(s, '/v1/events', {
        key: null,
        json: {
          browser_id: attempt.browser_id,
          browser_secret: browsers.get(attempt.browser_id)!.secret,
          events: [{ type, attempt_id: attempt.id }],
        },
      });
    // Receipts of each attempt through the two instances that did not take the send, all at once.
    await Promise.all(
      sends.flatMap((sent, s) =>
        sent.attempts.map(async (attempt, a) => {
          expect((await receipt(s + 1 + a, attempt, 'delivered')).status).toBe(202);
          expect((await receipt(s + 2 + a, attempt, 'displayed')).status).toBe(202);
        }),
      ),
    );

    // A connection per browser; per notification, two updates per attempt and its completion.
    const expected = browsers.size + SENDS * (BROWSERS_PER_RECIPIENT * 2 + 1);
    // On a timeout the checks below say which messages are missing.
    const arrived = await until(() => receiver.receivedBy('all').length, {
      accept: (count) => count >= expected,
      what: `${expected} messages`,
      timeoutMs: 60_000,
    }).then(
      () => true,
      () => false,
    );
    await quietPeriod(2000, 'a message delivered twice');
    const received = receiver.receivedBy('all');
    const ids = received.map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receiver.rejected).toEqual([]);

    expect(
      received
        .filter((message) => message.type === 'browser.connected')
        .map((message) => message.data.browser_id)
        .sort(),
    ).toEqual([...browsers.keys()].sort());
    for (const sent of sends) {
      const ofNotification = received.filter((message: ReceivedWebhook) =>
        message.type === 'notification.completed'
          ? message.data.id === sent.id
          : message.data.notification_id === sent.id,
      );
      // Two updates per attempt, and one completion, whichever instances ended its attempts.
      expect(
        ofNotification.map((message) => message.type),
        `the messages of ${sent.id}`,
      ).toEqual(
        expect.arrayContaining([
          ...Array.from({ length: BROWSERS_PER_RECIPIENT * 2 }, () => 'notification.attempt.updated'),
          'notification.completed',
        ]),
      );
      expect(ofNotification, sent.id).toHaveLength(BROWSERS_PER_RECIPIENT * 2 + 1);
      for (const attempt of sent.attempts) {
        const updates = ofNotification
          .filter((message) => (message.data.attempt as { id?: string } | undefined)?.id === attempt.id)
          .map((message) => message.data.attempt as { status: string; displayed_at: string | null });
        // In order: the delivery, then the display that came after it.
        expect(updates, attempt.id).toMatchObject([
          { status: 'delivered', displayed_at: null },
          { status: 'delivered', displayed_at: expect.any(String) },
        ]);
      }
      // The completion comes after both deliveries, and shows both attempts final.
      const types = ofNotification.map((message) =>
        message.type === 'notification.completed' ? 'completed' : (message.data.attempt as { status: string }).status,
      );
      const completedAt = types.indexOf('completed');
      const deliveries = ofNotification
        .map((message, index) => ({ message, index }))
        .filter(({ message }) => (message.data.attempt as { displayed_at?: string | null })?.displayed_at === null);
      expect(
        deliveries.every(({ index }) => index < completedAt),
        sent.id,
      ).toBe(true);
      const completed = ofNotification[completedAt]!.data as { attempts: { final: boolean }[] };
      expect(completed.attempts.every((attempt) => attempt.final)).toBe(true);
    }
    expect(arrived).toBe(true);
    expect(ids).toHaveLength(expected);
  }, 120_000);
});
