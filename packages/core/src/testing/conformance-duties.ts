import { expect, it } from 'vitest';
import type { BrowserRecord, ProjectRecord } from '../ports/records.js';
import { storeMethodsWhere } from '../ports/store/duties.js';
import type {
  AccountStore,
  BrowserStore,
  DeliveryStore,
  InboxStore,
  JobStore,
  MaintenanceStore,
  NotificationStore,
  PushStore,
  UsageStore,
  WebhookEndpointStore,
  WebhookMessageStore,
} from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { hashSecret } from '../shared/secrets.js';
import { utcDay } from '../shared/time.js';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/endpoint-admin.js';
import { WEBHOOK_JOB_KIND } from '../webhooks/events.js';
import { DAY_MS, type GetStore, seedBrowser, seedProject, sendCreated, T0 } from './fixtures.js';

/** The roles the duties' cases use: the writes that have duties, and where they are seen. */
type DutiesStore = AccountStore &
  BrowserStore &
  InboxStore &
  DeliveryStore &
  JobStore &
  MaintenanceStore &
  NotificationStore &
  PushStore &
  UsageStore &
  WebhookEndpointStore &
  WebhookMessageStore;

/** The writes whose duties include recording webhook events. */
type EventRecordingWrite =
  | 'registerBrowser'
  | 'applyReceipts'
  | 'disconnectBrowser'
  | 'reapStaleBrowsers'
  | 'markAttemptPushed'
  | 'failAttempt'
  | 'expireAttempts'
  | 'markInbox'
  | 'remindUnread';

/** What each write's case starts from: a project with an endpoint that wants every event, a browser, a send to it. */
interface EventWorld {
  store: DutiesStore;
  project: ProjectRecord;
  browser: BrowserRecord;
  attemptId: string;
}

/** An enabled endpoint of the project that wants `events`. */
async function endpointOf(store: WebhookEndpointStore, projectId: string, events: string[]) {
  const id = newId('whe', T0);
  const created = await store.createWebhookEndpoint({
    id,
    projectId,
    url: `https://example.com/${id}`,
    description: null,
    events,
    secret: 'whsec_duty',
    now: T0,
    maxEndpoints: 10,
  });
  if (created.kind !== 'created') throw new Error(created.kind);
  return created.endpoint;
}

/**
 * The duties `STORE_DUTIES` declares, where the port shows them: each case names the writes it
 * covers, and fails when the table declares the duty of another write, so that a new one comes
 * with a case.
 */
export function dutiesConformance(getStore: GetStore<DutiesStore>): void {
  it('a write that enqueues the jobs it computes wakes onJobsEnqueued listeners with their kinds', async () => {
    expect(storeMethodsWhere((duties) => duties.jobs === 'computed')).toEqual(['createNotification']);
    const store = getStore();
    const project = await seedProject(store);
    await seedBrowser(store, project.id, 'user-1');
    const heard: string[][] = [];
    const stop = store.onJobsEnqueued((kinds) => heard.push(kinds));
    try {
      await sendCreated(store, {
        projectId: project.id,
        recipient: 'user-1',
        jobs: () => [{ kind: 'duty', key: 'k', projectId: project.id, payload: null }],
      });
      expect(heard).toEqual([['duty']]);
    } finally {
      stop();
    }
  });

  it('a write that enqueues the jobs it lists wakes onJobsEnqueued listeners with their kinds', async () => {
    expect(storeMethodsWhere((duties) => duties.jobs === 'listed')).toEqual(['enqueueJobs']);
    const store = getStore();
    const project = await seedProject(store);
    const heard: string[][] = [];
    const stop = store.onJobsEnqueued((kinds) => heard.push(kinds));
    try {
      const jobs = await store.enqueueJobs({
        jobs: [
          { kind: 'listed-a', key: 'a', projectId: project.id, payload: null },
          { kind: 'listed-b', key: 'b', projectId: project.id, payload: null },
        ],
        now: T0,
      });
      expect(jobs.map((job) => job.kind)).toEqual(['listed-a', 'listed-b']);
      expect(heard).toEqual([['listed-a', 'listed-b']]);
    } finally {
      stop();
    }
  });

  // One case per write that records webhook events: what it changes, and the event it records.
  const recorders: Record<EventRecordingWrite, (world: EventWorld) => Promise<unknown>> = {
    registerBrowser: ({ store, project }) =>
      store.registerBrowser({
        id: newId('brw', T0 + 1),
        projectId: project.id,
        recipient: 'user-2',
        secretHash: hashSecret('bs_duty'),
        now: T0 + 1,
      }),
    applyReceipts: ({ store, browser, attemptId }) =>
      store.applyReceipts({
        browserId: browser.id,
        receipts: [{ type: 'delivered', attemptId, at: T0 + 1 }],
        now: T0 + 1,
      }),
    disconnectBrowser: ({ store, browser }) =>
      store.disconnectBrowser({ browserId: browser.id, reason: 'browser_disconnected', now: T0 + 1 }),
    reapStaleBrowsers: ({ store }) => store.reapStaleBrowsers({ seenBefore: T0 + DAY_MS, now: T0 + DAY_MS }),
    markAttemptPushed: ({ store, attemptId }) => store.markAttemptPushed({ attemptId, now: T0 + 1 }),
    failAttempt: ({ store, attemptId }) => store.failAttempt({ attemptId, reason: 'push_rejected', now: T0 + 1 }),
    expireAttempts: ({ store }) => store.expireAttempts({ now: T0 + DAY_MS }),
    markInbox: ({ store, project }) =>
      store.markInbox({
        projectId: project.id,
        recipient: 'user-1',
        action: 'read',
        target: { all: true },
        now: T0 + 1,
      }),
    remindUnread: async ({ store, project }) => {
      const [item] = (
        await store.listInbox({
          projectId: project.id,
          recipient: 'user-1',
          unread: true,
          archived: false,
          limit: 1,
          startingAfter: null,
        })
      ).items;
      return store.remindUnread({ notificationId: item!.notificationId, afterSeconds: 60, now: T0 + 60_000 });
    },
  };
  const expectedEvent: Record<EventRecordingWrite, string> = {
    registerBrowser: 'browser.connected',
    applyReceipts: 'notification.attempt.updated',
    disconnectBrowser: 'browser.disconnected',
    reapStaleBrowsers: 'browser.disconnected',
    markAttemptPushed: 'notification.attempt.updated',
    failAttempt: 'notification.attempt.updated',
    expireAttempts: 'notification.attempt.updated',
    markInbox: 'notification.read',
    remindUnread: 'notification.unread',
  };

  it('every write that records webhook events has a case here', () => {
    expect(storeMethodsWhere((duties) => duties.recordsWebhookEvents).sort()).toEqual(Object.keys(recorders).sort());
  });

  for (const name of Object.keys(recorders) as EventRecordingWrite[]) {
    it(`${name} records the events of its change for an endpoint that wants them, and wakes the runner`, async () => {
      const store = getStore();
      const project = await seedProject(store);
      const endpoint = await endpointOf(store, project.id, [...WEBHOOK_EVENT_TYPES]);
      const browser = await seedBrowser(store, project.id, 'user-1');
      const sent = await sendCreated(store, { projectId: project.id, recipient: 'user-1', ttl: 60 });
      const attemptId = sent.attempts[0]!.id;
      const list = () =>
        store.listWebhookMessages({
          endpointId: endpoint.id,
          status: null,
          since: null,
          before: null,
          limit: 100,
        });
      const before = new Set((await list()).map((message) => message.id));
      const heard: string[][] = [];
      const stop = store.onJobsEnqueued((kinds) => heard.push(kinds));
      try {
        await recorders[name]({ store, project, browser, attemptId });
        const recorded = (await list()).filter((message) => !before.has(message.id));
        expect(recorded.map((message) => message.eventType)).toContain(expectedEvent[name]);
        expect(heard.flat()).toContain(WEBHOOK_JOB_KIND);
      } finally {
        stop();
      }
    });
  }

  it('receipts record the events of an attempt only for the endpoints that want them, and none while no endpoint does', async () => {
    const store = getStore();
    const project = await seedProject(store);
    const browsersOnly = await endpointOf(store, project.id, ['browser.connected', 'browser.disconnected']);
    const browser = await seedBrowser(store, project.id, 'user-1');
    const eventsOf = async (endpointId: string) =>
      (await store.listWebhookMessages({ endpointId, status: null, since: null, before: null, limit: 100 }))
        .map((message) => message.eventType)
        .sort();
    const first = await sendCreated(store, { projectId: project.id, recipient: 'user-1' });
    await store.applyReceipts({
      browserId: browser.id,
      receipts: [{ type: 'delivered', attemptId: first.attempts[0]!.id, at: T0 + 1 }],
      now: T0 + 1,
    });
    expect(await eventsOf(browsersOnly.id)).toEqual(['browser.connected']);

    const completions = await endpointOf(store, project.id, ['notification.completed']);
    const second = await sendCreated(store, { projectId: project.id, recipient: 'user-1', now: T0 + 2 });
    await store.applyReceipts({
      browserId: browser.id,
      receipts: [{ type: 'delivered', attemptId: second.attempts[0]!.id, at: T0 + 3 }],
      now: T0 + 3,
    });
    expect(await eventsOf(completions.id)).toEqual(['notification.completed']);
    expect(await eventsOf(browsersOnly.id)).toEqual(['browser.connected']);

    await store.setWebhookEndpointStatus({ id: completions.id, status: 'disabled', reason: null, now: T0 + 4 });
    await store.applyReceipts({
      browserId: browser.id,
      receipts: [{ type: 'displayed', attemptId: second.attempts[0]!.id, at: T0 + 5 }],
      now: T0 + 5,
    });
    expect(await eventsOf(completions.id)).toEqual(['notification.completed']);
    expect(await eventsOf(browsersOnly.id)).toEqual(['browser.connected']);
  });

  it('a write that makes webhook messages pending again wakes the runner when it returns some', async () => {
    expect(storeMethodsWhere((duties) => duties.jobs === 'webhook-returned')).toEqual(['resendWebhookMessages']);
    const store = getStore();
    const project = await seedProject(store);
    const endpoint = await endpointOf(store, project.id, [...WEBHOOK_EVENT_TYPES]);
    const [message] = await store.enqueueWebhookMessages({
      messages: [
        {
          id: newId('msg', T0),
          projectId: project.id,
          endpointId: endpoint.id,
          eventType: 'webhook.test',
          payload: {},
          orderKey: 'test',
          createdAt: T0,
        },
      ],
      now: T0,
    });
    await store.recordWebhookAttempt({
      attempt: {
        messageId: message!.id,
        attemptedAt: T0 + 1,
        statusCode: 200,
        latencyMs: 5,
        outcome: 'succeeded',
        responseExcerpt: null,
        error: null,
      },
      status: 'delivered',
      nextAttemptAt: null,
    });
    const heard: string[][] = [];
    const stop = store.onJobsEnqueued((kinds) => heard.push(kinds));
    try {
      expect(await store.resendWebhookMessages({ ids: ['msg_unknown'], now: T0 + 2 })).toEqual([]);
      expect(heard).toEqual([]);
      const resent = await store.resendWebhookMessages({ ids: [message!.id], now: T0 + 2 });
      expect(resent.map((record) => record.status)).toEqual(['pending']);
      expect(heard).toEqual([[WEBHOOK_JOB_KIND]]);
    } finally {
      stop();
    }
  });

  it('a write that counts usage counts it with what it recorded', async () => {
    expect(storeMethodsWhere((duties) => duties.countsUsage)).toEqual(['createNotification']);
    const store = getStore();
    const project = await seedProject(store);
    await seedBrowser(store, project.id, 'user-1');
    await seedBrowser(store, project.id, 'user-1');
    await sendCreated(store, { projectId: project.id, recipient: 'user-1' });
    const day = utcDay(T0);
    expect(await store.getUsage({ projectId: project.id, fromDay: day, toDay: day })).toEqual([
      { day, notifications: 1, attempts: 2 },
    ]);
  });
}
