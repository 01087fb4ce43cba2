// What a copy of the database holds once Tidings has made and used its secrets under a secrets
// key: a scenario run on each store, given a way to read the store's raw bytes (a SQLite file and
// its WAL, PostgreSQL's rows as text).
import { createSecretSealer, createTidings, inbox, parseSecretKeys, type Store } from '@tidings/core';
import { webhooks, webPush } from '@tidings/core/node';
import { until } from '@tidings/core/testing';
import { expect } from 'vitest';
import { startTestPushService } from './push-service.js';
import { startWebhookReceiver } from './webhook-receiver.js';

/** Every form a secret could be found in: as is, its base64 and base64url, and their halves. */
export function formsOf(secret: string): string[] {
  const body = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  const bytes = Buffer.from(body.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
  const forms = new Set([secret, body, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')]);
  // A part of a form long enough to tell (16 characters) is as good as the whole.
  for (const form of [...forms]) forms.add(form.slice(0, 16));
  return [...forms];
}

/**
 * Makes endpoints, rolls one's secret, makes the VAPID key, and has a webhook and a push go out;
 * then checks `readRaw()` holds none of those secrets in any form, and that the receiver verified
 * every webhook with the official `standardwebhooks` library and the push service decrypted the
 * push. Returns the secrets made.
 */
export async function sealedSecretsScenario(store: Store, readRaw: () => Promise<string>, key: string) {
  const receiver = await startWebhookReceiver();
  const pushService = await startTestPushService();
  const tidings = createTidings({
    store,
    secretKeys: [key],
    sweepIntervalMs: 0,
    features: [
      inbox(),
      webhooks({ allowHttp: true, allowPrivateAddresses: true }),
      webPush({
        vapidSubject: 'mailto:ops@example.com',
        allowedHosts: ['127.0.0.1'],
        allowHttp: true,
        allowPrivateAddresses: true,
        graceMs: 0,
      }),
    ],
  });
  try {
    const { admin } = tidings;
    const account = await admin.createAccount({ email: 'owner@example.com', verified: true });
    const project = await admin.createProject({ accountId: account.id, name: 'App' });
    const { key: liveKey } = await admin.createKey({ projectId: project.id, mode: 'live' });
    const events = ['browser.connected', 'notification.attempt.updated'];
    const kept = await admin.createWebhookEndpoint({
      projectId: project.id,
      url: receiver.endpointUrl('kept'),
      events,
    });
    const rolled = await admin.createWebhookEndpoint({
      projectId: project.id,
      url: receiver.endpointUrl('rolled'),
      events,
    });
    const roll = await admin.rollWebhookSecret(rolled.id, { graceSeconds: 3600 });
    receiver.setSecret('kept', kept.secret!);
    receiver.setSecret('rolled', roll.secret!);
    await admin.getVapidKey();
    const sealer = createSecretSealer(parseSecretKeys([key], 'test'));
    const storedVapid = (await store.getVapidKeys())!;
    const vapid = sealer.open(storedVapid.privateKey, { table: 'vapid_keys', id: '1', projectId: null });
    expect(vapid.kind).toBe('opened');
    const vapidPrivateKey = vapid.kind === 'opened' ? vapid.value : '';
    const secrets = [kept.secret!, rolled.secret!, roll.secret!, vapidPrivateKey];

    // A browser connects (a webhook to each endpoint) and subscribes; a send is pushed to it.
    const api = (path: string, init: { method?: string; json?: unknown; key?: boolean } = {}) =>
      tidings.fetch(
        new Request(`http://tidings.test${path}`, {
          method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
          headers: {
            ...(init.key === false ? {} : { Authorization: `Bearer ${liveKey}` }),
            ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
        }),
      );
    const token = (await (await api('/v1/connect-tokens', { json: { recipient: 'alice' } })).json()).token;
    const browser = await (await api(`/v1/connect/${token}`, { method: 'POST', key: false })).json();
    const subscription = pushService.subscribe();
    const saved = await api(`/v1/browsers/${browser.browser_id}/push-subscription`, {
      method: 'PUT',
      key: false,
      json: {
        browser_secret: browser.browser_secret,
        endpoint: subscription.endpoint,
        keys: { p256dh: subscription.p256dh, auth: subscription.auth },
      },
    });
    expect(saved.status).toBe(200);
    const sent = await (await api('/v1/notifications', { json: { recipient: 'alice', title: 'Sealed' } })).json();
    const [push] = await until(() => pushService.received, { accept: (all) => all.length > 0, what: 'the push' });
    expect(JSON.parse(push!.payload).notification.notification_id).toBe(sent.id);
    expect(push!.vapidKey).toBe(storedVapid.publicKey);
    await until(() => receiver.received, {
      accept: (all) => ['kept', 'rolled'].every((name) => all.some((hook) => hook.endpoint === name)),
      what: 'a webhook at each endpoint',
    });
    expect(receiver.rejected).toEqual([]);
    // The rolled endpoint's requests carry the old secret's signature too, during the grace.
    expect(receiver.receivedBy('rolled').every((hook) => hook.signatures === 2)).toBe(true);

    const raw = await readRaw();
    expect(raw).not.toContain('whsec_');
    for (const secret of secrets) {
      for (const form of formsOf(secret))
        expect(raw.includes(form), `a form of a secret: ${form.slice(0, 4)}…`).toBe(false);
    }
    return { secrets, projectId: project.id, endpointIds: [kept.id, rolled.id] };
  } finally {
    await tidings.close();
  }
}
