import { quietPeriod, until } from '@tidings/core/testing';
import { assertBuilt } from '@tidings/test-support/cli-process.js';
import { startTestPushService, type TestPushService } from '@tidings/test-support/push-service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from './cluster.js';

/**
 * Web Push from three `tidings serve` instances on one PostgreSQL schema: every instance runs the
 * push jobs, and the queue's claims hand each attempt's job to one of them.
 */
const BROWSERS = 6;
const SENDS = 8;
const GRACE_MS = 500;

let cluster: Cluster;
let pushService: TestPushService;
let liveKey: string;

beforeAll(async () => {
  assertBuilt();
  pushService = await startTestPushService({ closeAfterTest: false });
  cluster = await startCluster(3, {
    limits: { perKey: 100_000, perProject: 100_000, perAccount: 100_000 },
    push: {
      vapidSubject: 'https://ops.example.com/contact',
      allowedHosts: ['127.0.0.1'],
      allowHttp: true,
      allowPrivateAddresses: true,
      graceMs: GRACE_MS,
    },
  });
  const account = await cluster.cli<{ id: string }>(['account', 'create', '--email', 'ops@example.com', '--verified']);
  const project = await cluster.cli<{ id: string }>(['project', 'create', '--account', account.id, '--name', 'P']);
  liveKey = (await cluster.cli<{ key: string }>(['key', 'create', '--project', project.id, '--mode', 'live'])).key;
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  await pushService?.close();
});

function api(path: string, init: { method?: string; json?: unknown; key?: string | null } = {}) {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers.Authorization = `Bearer ${liveKey}`;
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${cluster.url}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

describe('three instances with Web Push', () => {
  it('agree on one VAPID key pair', async () => {
    const keys = await Promise.all(
      cluster.instances.map(
        async (instance) =>
          /^web push on: VAPID subject \S+, public key (\S+)$/m.exec(
            await instance.waitForStdout(/^web push on: .*$/m),
          )?.[1],
      ),
    );
    expect(keys[0]).toMatch(/^B[\w-]{86}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it('push each attempt exactly once', async () => {
    const token = (await (await api('/v1/connect-tokens', { json: { recipient: 'many' } })).json()).token;
    const subscriptionOf = new Map<string, string>();
    for (let i = 0; i < BROWSERS; i++) {
      const browser = await (await api(`/v1/connect/${token}`, { method: 'POST', key: null })).json();
      const subscription = pushService.subscribe();
      const saved = await api(`/v1/browsers/${browser.browser_id}/push-subscription`, {
        method: 'PUT',
        key: null,
        json: {
          browser_secret: browser.browser_secret,
          endpoint: subscription.endpoint,
          keys: { p256dh: subscription.p256dh, auth: subscription.auth },
        },
      });
      expect(saved.status).toBe(200);
      subscriptionOf.set(browser.browser_id, subscription.id);
    }
    const attemptIds: string[] = [];
    const sends = await Promise.all(
      Array.from({ length: SENDS }, (_, n) =>
        api('/v1/notifications', { json: { recipient: 'many', title: `n${n}` } }),
      ),
    );
    for (const response of sends) {
      expect(response.status).toBe(201);
      const sent = (await response.json()) as { attempts: { id: string; browser_id: string }[] };
      expect(sent.attempts).toHaveLength(BROWSERS);
      attemptIds.push(...sent.attempts.map((attempt) => attempt.id));
    }

    await until(() => pushService.received.length, {
      accept: (count) => count >= attemptIds.length,
      what: `${attemptIds.length} pushes`,
      timeoutMs: 30_000,
    });
    await quietPeriod(GRACE_MS + 2000, 'no attempt pushed a second time');
    const pushed = pushService.received.map((push) => {
      const envelope = JSON.parse(push.payload);
      // Each message went to the subscription of the browser it names.
      expect(subscriptionOf.get(envelope.browser_id)).toBe(push.subscriptionId);
      return envelope.notification.attempt_id as string;
    });
    expect(pushed.sort()).toEqual([...attemptIds].sort());
    expect(pushService.rejected).toEqual([]);
  });
});
