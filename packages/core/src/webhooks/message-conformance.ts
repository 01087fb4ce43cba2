import { describe, expect, it } from 'vitest';
import { attemptObject, isoTime, notificationObject } from '../delivery/serialize.js';
import type {
  AccountStore,
  BrowserStore,
  DeliveryStore,
  JobStore,
  MaintenanceStore,
  NotificationStore,
  PushStore,
  WebhookEndpointStore,
  WebhookMessageAttemptRecord,
  WebhookMessageRecord,
  WebhookMessageStore,
} from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { DAY_MS, type GetStore, readBack, seedBrowser, seedProject, sendCreated, T0 } from '../testing/fixtures.js';
import { WEBHOOK_MESSAGE_RETENTION_MS, webhookMessageOf } from './events.js';

/** The roles the webhook message cases use: they seed projects, browsers and sends to make events. */
type WebhookMessageRoles = AccountStore &
  BrowserStore &
  DeliveryStore &
  JobStore &
  MaintenanceStore &
  NotificationStore &
  PushStore &
  WebhookEndpointStore &
  WebhookMessageStore;

async function createEndpoint(
  store: WebhookMessageRoles,
  projectId: string,
  events: string[] = ['*'],
  now = T0,
): Promise<string> {
  const result = await store.createWebhookEndpoint({
    id: newId('whe', now),
    projectId,
    url: 'https://example.com/hooks',
    description: null,
    events,
    secret: 'whsec_first',
    now,
    maxEndpoints: 10,
  });
  if (result.kind !== 'created') throw new Error(result.kind);
  return result.endpoint.id;
}

/** An endpoint's messages, oldest first. */
async function messagesOf(store: WebhookMessageRoles, endpointId: string): Promise<WebhookMessageRecord[]> {
  const page = await store.listWebhookMessages({ endpointId, status: null, since: null, before: null, limit: 100 });
  return page.reverse();
}

function typesOf(messages: WebhookMessageRecord[]): string[] {
  return messages.map((message) => message.eventType);
}

function attemptRecord(messageId: string, at: number, outcome: WebhookMessageAttemptRecord['outcome']) {
  return {
    messageId,
    attemptedAt: at,
    statusCode: outcome === 'succeeded' ? 200 : outcome === 'failed' ? 500 : null,
    latencyMs: 12,
    outcome,
    responseExcerpt: outcome === 'succeeded' || outcome === 'failed' ? 'ok' : null,
    error: outcome === 'succeeded' ? null : 'it failed',
  };
}

async function testMessage(store: WebhookMessageRoles, projectId: string, endpointId: string, now: number) {
  const [message] = await store.enqueueWebhookMessages({
    messages: [
      webhookMessageOf(
        { type: 'webhook.test', timestamp: isoTime(now), data: { endpoint_id: endpointId }, orderKey: 'test' },
        { id: endpointId, projectId },
        now,
      ),
    ],
    now,
  });
  return message!;
}

/**
 * Webhook messages: the events the writes record for the enabled endpoints that want them, in
 * the write's transaction, and the message log, its requests, resends and purge.
 */
export function webhookMessageConformance(getStore: GetStore<WebhookMessageRoles>): void {
  describe('webhook messages', () => {
    it('records nothing for a project without an endpoint', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'ann');
      const created = await sendCreated(store, { projectId: project.id, recipient: 'ann' });
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ attemptId: created.attempts[0]!.id, type: 'delivered', at: T0 + 1 }],
        now: T0 + 1,
      });
      await store.disconnectBrowser({ browserId: browser.id, reason: 'browser_disconnected', now: T0 + 2 });
      expect(await store.listJobs({ projectId: project.id, limit: 10 })).toEqual([]);
    });

    it('records a browser connected and each receipt that changes an attempt, with the notification completed', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpointId = await createEndpoint(store, project.id);
      const browser = await seedBrowser(store, project.id, 'ann', T0 + 1);
      const created = await sendCreated(store, { projectId: project.id, recipient: 'ann', now: T0 + 2 });
      const attemptId = created.attempts[0]!.id;
      // A send changes no attempt: no event.
      expect(typesOf(await messagesOf(store, endpointId))).toEqual(['browser.connected']);

      await store.applyReceipts({
        browserId: browser.id,
        receipts: [
          { attemptId, type: 'delivered', at: T0 + 3 },
          { attemptId, type: 'displayed', at: T0 + 3 },
        ],
        now: T0 + 3,
      });
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ attemptId, type: 'displayed', at: T0 + 4 }],
        now: T0 + 4,
      });
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [{ attemptId, type: 'clicked', at: T0 + 5 }],
        now: T0 + 5,
      });
      const messages = await messagesOf(store, endpointId);
      expect(typesOf(messages)).toEqual([
        'browser.connected',
        'notification.attempt.updated',
        'notification.completed',
        'notification.attempt.updated',
      ]);
      const [connected, delivered, completed, clicked] = messages;
      expect(connected).toMatchObject({
        projectId: project.id,
        endpointId,
        orderKey: browser.id,
        status: 'pending',
        attempts: 0,
        createdAt: T0 + 1,
        nextAttemptAt: T0 + 1,
        lastAttemptAt: null,
        deliveredAt: null,
        payload: {
          type: 'browser.connected',
          timestamp: isoTime(T0 + 1),
          data: { browser_id: browser.id, recipient: 'ann', connected_at: isoTime(T0 + 1) },
        },
      });
      expect(connected!.id).toMatch(/^msg_/);
      const final = await readBack(store, project.id, created.notification.id);
      expect(delivered!.orderKey).toBe(created.notification.id);
      expect(delivered!.payload).toEqual({
        type: 'notification.attempt.updated',
        timestamp: isoTime(T0 + 3),
        data: {
          notification_id: created.notification.id,
          recipient: 'ann',
          attempt: { ...attemptObject(final.attempts[0]!), clicked_at: null },
        },
      });
      expect(completed!.payload).toEqual({
        type: 'notification.completed',
        timestamp: isoTime(T0 + 3),
        data: { ...notificationObject(final), attempts: [{ ...attemptObject(final.attempts[0]!), clicked_at: null }] },
      });
      expect(clicked!.payload).toMatchObject({ data: { attempt: attemptObject(final.attempts[0]!) } });

      const jobs = await store.listJobs({ projectId: project.id, kind: 'webhook', limit: 10 });
      expect(jobs.reverse().map((job) => [job.key, job.payload])).toEqual(
        messages.map((message) => [`webhook:${endpointId}:${message.orderKey}`, { messageId: message.id }]),
      );
    });

    it('records only the types an enabled endpoint of the project wants, and nothing for test mode', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await seedProject(store);
      const completedOnly = await createEndpoint(store, project.id, ['notification.completed']);
      const disabled = await createEndpoint(store, project.id, ['*']);
      await store.setWebhookEndpointStatus({ id: disabled, status: 'disabled', reason: null, now: T0 });
      const otherEndpoint = await createEndpoint(store, other.id, ['*']);
      const browser = await seedBrowser(store, project.id, 'ann');
      const live = await sendCreated(store, { projectId: project.id, recipient: 'ann', now: T0 + 1 });
      const test = await sendCreated(store, { projectId: project.id, recipient: 'ann', mode: 'test', now: T0 + 1 });
      await store.applyReceipts({
        browserId: browser.id,
        receipts: [
          { attemptId: live.attempts[0]!.id, type: 'delivered', at: T0 + 2 },
          { attemptId: test.attempts[0]!.id, type: 'displayed', at: T0 + 2 },
        ],
        now: T0 + 2,
      });
      expect(typesOf(await messagesOf(store, completedOnly))).toEqual(['notification.completed']);
      expect(await messagesOf(store, disabled)).toEqual([]);
      expect(await messagesOf(store, otherEndpoint)).toEqual([]);
    });

    it('records a disconnection: the attempts it failed, the notifications it completed, the browser', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const browser = await seedBrowser(store, project.id, 'ann');
      const stale = await seedBrowser(store, project.id, 'bob');
      const endpointId = await createEndpoint(store, project.id, ['*'], T0 + 1);
      const created = await sendCreated(store, { projectId: project.id, recipient: 'ann', now: T0 + 1 });
      await store.disconnectBrowser({ browserId: browser.id, reason: 'browser_disconnected', now: T0 + 2 });
      await store.touchBrowsers({ browserIds: [stale.id], now: T0 });
      await store.reapStaleBrowsers({ seenBefore: T0 + 3, now: T0 + 4 });
      const messages = await messagesOf(store, endpointId);
      expect(typesOf(messages)).toEqual([
        'notification.attempt.updated',
        'browser.disconnected',
        'notification.completed',
        'browser.disconnected',
      ]);
      expect(messages[0]!.payload).toMatchObject({
        data: {
          notification_id: created.notification.id,
          attempt: { status: 'failed', reason: 'browser_disconnected' },
        },
      });
      expect(messages[1]!.payload).toEqual({
        type: 'browser.disconnected',
        timestamp: isoTime(T0 + 2),
        data: { browser_id: browser.id, recipient: 'ann', disconnected_at: isoTime(T0 + 2), reason: 'disconnected' },
      });
      expect(messages[3]!.payload).toMatchObject({ data: { browser_id: stale.id, recipient: 'bob', reason: 'stale' } });
    });

    it('records attempts expired, failed, and accepted by a push service the first time', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpointId = await createEndpoint(store, project.id, ['notification.attempt.updated']);
      await seedBrowser(store, project.id, 'ann');
      const pushed = await sendCreated(store, { projectId: project.id, recipient: 'ann', ttl: 60 });
      const failed = await sendCreated(store, { projectId: project.id, recipient: 'ann', ttl: 3600 });
      expect(await store.markAttemptPushed({ attemptId: pushed.attempts[0]!.id, now: T0 + 1 })).toBe(true);
      expect(await store.markAttemptPushed({ attemptId: pushed.attempts[0]!.id, now: T0 + 2 })).toBe(true);
      expect(await store.failAttempt({ attemptId: failed.attempts[0]!.id, reason: 'push_rejected', now: T0 + 3 })).toBe(
        true,
      );
      expect(await store.failAttempt({ attemptId: failed.attempts[0]!.id, reason: 'push_rejected', now: T0 + 4 })).toBe(
        false,
      );
      await store.expireAttempts({ now: T0 + 61_000 });
      const messages = await messagesOf(store, endpointId);
      expect(
        messages.map((message) => (message.payload as { data: { attempt: { status: string } } }).data.attempt.status),
      ).toEqual(['sent', 'failed', 'expired']);
    });

    it('records requests with the status they leave, and the endpoint failing since its first failure', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpointId = await createEndpoint(store, project.id);
      const message = await testMessage(store, project.id, endpointId, T0);
      expect(message).toMatchObject({ eventType: 'webhook.test', status: 'pending', orderKey: 'test' });

      const first = await store.recordWebhookAttempt({
        attempt: attemptRecord(message.id, T0 + 10, 'timeout'),
        status: 'pending',
        nextAttemptAt: T0 + 5000,
      });
      expect(first?.message).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastAttemptAt: T0 + 10,
        nextAttemptAt: T0 + 5000,
      });
      expect(first?.endpoint?.failingSince).toBe(T0 + 10);
      const second = await store.recordWebhookAttempt({
        attempt: attemptRecord(message.id, T0 + 20, 'failed'),
        status: 'pending',
        nextAttemptAt: T0 + 6000,
      });
      expect(second?.endpoint?.failingSince).toBe(T0 + 10);
      const third = await store.recordWebhookAttempt({
        attempt: attemptRecord(message.id, T0 + 30, 'succeeded'),
        status: 'delivered',
        nextAttemptAt: null,
      });
      expect(third?.message).toMatchObject({
        status: 'delivered',
        attempts: 3,
        deliveredAt: T0 + 30,
        nextAttemptAt: null,
      });
      expect(third?.endpoint?.failingSince).toBeNull();
      const found = await store.getWebhookMessage(message.id);
      expect(found?.message).toEqual(third?.message);
      expect(found?.attempts).toEqual([
        attemptRecord(message.id, T0 + 10, 'timeout'),
        attemptRecord(message.id, T0 + 20, 'failed'),
        attemptRecord(message.id, T0 + 30, 'succeeded'),
      ]);
      expect(await store.getWebhookMessage('msg_unknown')).toBeNull();
      expect(
        await store.recordWebhookAttempt({
          attempt: attemptRecord('msg_unknown', T0, 'failed'),
          status: 'failed',
          nextAttemptAt: null,
        }),
      ).toBeNull();
    });

    it('lists an endpoint’s messages newest first, by status, since a time and by page', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpointId = await createEndpoint(store, project.id);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await testMessage(store, project.id, endpointId, T0 + i * 1000)).id);
      await store.recordWebhookAttempt({
        attempt: attemptRecord(ids[1]!, T0 + 1500, 'succeeded'),
        status: 'delivered',
        nextAttemptAt: null,
      });
      const list = (input: Partial<Parameters<WebhookMessageStore['listWebhookMessages']>[0]>) =>
        store
          .listWebhookMessages({ endpointId, status: null, since: null, before: null, limit: 100, ...input })
          .then((page) => page.map((message) => message.id));
      expect(await list({})).toEqual([...ids].reverse());
      expect(await list({ status: 'delivered' })).toEqual([ids[1]]);
      expect(await list({ status: 'pending', limit: 2 })).toEqual([ids[4], ids[3]]);
      expect(await list({ before: ids[3], limit: 2 })).toEqual([ids[2], ids[1]]);
      expect(await list({ since: T0 + 3000 })).toEqual([ids[4], ids[3]]);
      expect(await list({ endpointId: 'whe_unknown' })).toEqual([]);
    });

    it('lists an endpoint’s messages by event type, notification and recipient, combined', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpointId = await createEndpoint(store, project.id);
      const event = (type: string, orderKey: string, data: unknown, at: number) =>
        store
          .enqueueWebhookMessages({
            messages: [
              webhookMessageOf(
                { type, timestamp: isoTime(at), data, orderKey },
                { id: endpointId, projectId: project.id },
                at,
              ),
            ],
            now: at,
          })
          .then(([message]) => message!.id);
      const annUpdated = await event(
        'notification.attempt.updated',
        'ntf_a',
        { notification_id: 'ntf_a', recipient: 'ann' },
        T0,
      );
      const annCompleted = await event('notification.completed', 'ntf_a', { id: 'ntf_a', recipient: 'ann' }, T0 + 1);
      const bobUpdated = await event(
        'notification.attempt.updated',
        'ntf_b',
        { notification_id: 'ntf_b', recipient: 'bob' },
        T0 + 2,
      );
      const bobConnected = await event('browser.connected', 'brw_b', { browser_id: 'brw_b', recipient: 'bob' }, T0 + 3);
      const list = (input: Partial<Parameters<WebhookMessageStore['listWebhookMessages']>[0]>) =>
        store
          .listWebhookMessages({ endpointId, status: null, since: null, before: null, limit: 100, ...input })
          .then((page) => page.map((message) => message.id));
      expect(await list({ eventType: 'notification.attempt.updated' })).toEqual([bobUpdated, annUpdated]);
      expect(await list({ notificationId: 'ntf_a' })).toEqual([annCompleted, annUpdated]);
      expect(await list({ recipient: 'bob' })).toEqual([bobConnected, bobUpdated]);
      expect(await list({ recipient: 'bob', eventType: 'browser.connected' })).toEqual([bobConnected]);
      expect(await list({ recipient: 'ann', notificationId: 'ntf_b' })).toEqual([]);
    });

    it('resends messages with their ids, in order, each with a new job; a pending one keeps its job', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpointId = await createEndpoint(store, project.id);
      const a = await testMessage(store, project.id, endpointId, T0);
      const b = await testMessage(store, project.id, endpointId, T0 + 1000);
      const c = await testMessage(store, project.id, endpointId, T0 + 2000);
      await store.recordWebhookAttempt({
        attempt: attemptRecord(a.id, T0 + 10, 'succeeded'),
        status: 'delivered',
        nextAttemptAt: null,
      });
      await store.recordWebhookAttempt({
        attempt: attemptRecord(b.id, T0 + 1010, 'failed'),
        status: 'failed',
        nextAttemptAt: null,
      });
      const jobsBefore = (await store.listJobs({ projectId: project.id, kind: 'webhook', limit: 50 })).length;

      const [again] = await store.resendWebhookMessages({ ids: [a.id], now: T0 + 5000 });
      expect(again).toMatchObject({
        id: a.id,
        status: 'pending',
        nextAttemptAt: T0 + 5000,
        deliveredAt: null,
        attempts: 1,
      });
      const [stillPending] = await store.resendWebhookMessages({ ids: [c.id], now: T0 + 5000 });
      expect(stillPending).toMatchObject({ id: c.id, status: 'pending', nextAttemptAt: T0 + 2000 });
      expect(await store.resendWebhookMessages({ ids: ['msg_unknown'], now: T0 })).toEqual([]);
      const jobs = await store.listJobs({ projectId: project.id, kind: 'webhook', limit: 50 });
      expect(jobs.length).toBe(jobsBefore + 1);
      expect(jobs[0]).toMatchObject({ payload: { messageId: a.id }, status: 'pending', runAt: T0 + 5000 });

      await store.recordWebhookAttempt({
        attempt: attemptRecord(a.id, T0 + 6000, 'succeeded'),
        status: 'delivered',
        nextAttemptAt: null,
      });
      const replayed = await store.resendWebhookMessages({ endpointId, since: T0, now: T0 + 7000 });
      // The pending one is replayed too: it keeps its job (due already), and takes no second.
      expect(replayed.map((message) => [message.id, message.status])).toEqual([
        [a.id, 'pending'],
        [b.id, 'pending'],
        [c.id, 'pending'],
      ]);
      const replayJobs = (await store.listJobs({ projectId: project.id, kind: 'webhook', limit: 2 })).reverse();
      expect(replayJobs.map((job) => job.payload)).toEqual([{ messageId: a.id }, { messageId: b.id }]);
      expect(await store.resendWebhookMessages({ endpointId, since: T0 + 10_000, now: T0 + 7000 })).toEqual([]);
    });

    it('makes a retrying message due now when it is resent or replayed: its own job, no second one', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpointId = await createEndpoint(store, project.id);
      const retrying = await testMessage(store, project.id, endpointId, T0);
      const later = T0 + 15 * 60_000;
      await store.recordWebhookAttempt({
        attempt: attemptRecord(retrying.id, T0 + 10, 'failed'),
        status: 'pending',
        nextAttemptAt: later,
      });
      // The job runner's own retry of the job, as the handler's error asks for.
      const [claimed] = await store.claimJobs({
        kinds: ['webhook'],
        limit: 1,
        now: T0 + 5,
        leaseMs: 60_000,
        owner: 'r',
      });
      expect(claimed?.payload).toEqual({ messageId: retrying.id });
      expect(await store.retryJob({ id: claimed!.id, owner: 'r', runAt: later, error: 'HTTP 500' })).toBe(true);
      const jobsBefore = await store.listJobs({ projectId: project.id, kind: 'webhook', limit: 50 });

      const [resent] = await store.resendWebhookMessages({ ids: [retrying.id], now: T0 + 1000 });
      expect(resent).toMatchObject({ id: retrying.id, status: 'pending', attempts: 1, nextAttemptAt: T0 + 1000 });
      const jobs = await store.listJobs({ projectId: project.id, kind: 'webhook', limit: 50 });
      expect(jobs).toHaveLength(jobsBefore.length);
      expect(jobs[0]).toMatchObject({ id: claimed!.id, status: 'pending', runAt: T0 + 1000 });
      const [again] = await store.claimJobs({
        kinds: ['webhook'],
        limit: 1,
        now: T0 + 1000,
        leaseMs: 60_000,
        owner: 'r',
      });
      expect(again).toMatchObject({ id: claimed!.id, attempts: 2 });
      expect(await store.retryJob({ id: claimed!.id, owner: 'r', runAt: later, error: 'HTTP 500' })).toBe(true);

      const replayed = await store.resendWebhookMessages({ endpointId, since: T0, now: T0 + 2000 });
      expect(replayed).toEqual([
        expect.objectContaining({ id: retrying.id, status: 'pending', nextAttemptAt: T0 + 1000 }),
      ]);
      expect((await store.listJobs({ projectId: project.id, kind: 'webhook', limit: 50 }))[0]).toMatchObject({
        id: claimed!.id,
        runAt: T0 + 2000,
      });
    });

    it('disables an endpoint only while it has been failing since the time given; enabling clears it', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpointId = await createEndpoint(store, project.id);
      const message = await testMessage(store, project.id, endpointId, T0);
      const input = { id: endpointId, failingSince: T0, reason: 'failing', now: T0 + 4 * DAY_MS };
      expect(await store.disableFailingWebhookEndpoint(input)).toBeNull();
      await store.recordWebhookAttempt({
        attempt: attemptRecord(message.id, T0 + 100, 'network'),
        status: 'pending',
        nextAttemptAt: T0 + 200,
      });
      expect(await store.disableFailingWebhookEndpoint(input)).toBeNull();
      expect(await store.disableFailingWebhookEndpoint({ ...input, failingSince: T0 + 100 })).toMatchObject({
        status: 'disabled',
        disabledReason: 'failing',
        updatedAt: T0 + 4 * DAY_MS,
      });
      expect(await store.disableFailingWebhookEndpoint({ ...input, failingSince: T0 + 100 })).toBeNull();
      const enabled = await store.setWebhookEndpointStatus({
        id: endpointId,
        status: 'enabled',
        reason: null,
        now: T0 + 5 * DAY_MS,
      });
      expect(enabled).toMatchObject({ status: 'enabled', failingSince: null });
    });

    it('purges messages 30 days after their creation, and deletes them with their endpoint', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpointId = await createEndpoint(store, project.id);
      const old = await testMessage(store, project.id, endpointId, T0);
      const recent = await testMessage(store, project.id, endpointId, T0 + DAY_MS);
      await store.recordWebhookAttempt({
        attempt: attemptRecord(old.id, T0 + 1, 'failed'),
        status: 'failed',
        nextAttemptAt: null,
      });
      await store.purgeExpired({ now: T0 + WEBHOOK_MESSAGE_RETENTION_MS + 1 });
      expect(await store.getWebhookMessage(old.id)).toBeNull();
      expect(await store.getWebhookMessage(recent.id)).not.toBeNull();
      expect(await store.deleteWebhookEndpoint({ id: endpointId })).toBe(true);
      expect(await store.getWebhookMessage(recent.id)).toBeNull();
    });
  });
}
