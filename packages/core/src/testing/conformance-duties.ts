import { expect, it } from 'vitest';
import { storeMethodsWhere } from '../ports/store/duties.js';
import type {
  AccountStore,
  BrowserStore,
  JobStore,
  NotificationStore,
  UsageStore,
  WebhookEndpointStore,
  WebhookMessageStore,
} from '../ports/store.js';
import { newId } from '../util/ids.js';
import { hashSecret } from '../util/secrets.js';
import { utcDay } from '../util/time.js';
import { WEBHOOK_JOB_KIND } from '../webhooks/events.js';
import { type GetStore, seedBrowser, seedProject, sendCreated, T0 } from './fixtures.js';

/** The roles the duties' cases use: the writes that have duties, and where they are seen. */
type DutiesStore = AccountStore &
  BrowserStore &
  JobStore &
  NotificationStore &
  UsageStore &
  WebhookEndpointStore &
  WebhookMessageStore;

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

  it('a write that records webhook events records them for an endpoint that wants them, and wakes the runner', async () => {
    expect(storeMethodsWhere((duties) => duties.recordsWebhookEvents)).toContain('registerBrowser');
    const store = getStore();
    const project = await seedProject(store);
    const created = await store.createWebhookEndpoint({
      id: newId('whe', T0),
      projectId: project.id,
      url: 'https://example.com/hooks',
      description: null,
      events: ['browser.connected'],
      secret: 'whsec_duty',
      now: T0,
      maxEndpoints: 10,
    });
    if (created.kind !== 'created') throw new Error(created.kind);
    const heard: string[][] = [];
    const stop = store.onJobsEnqueued((kinds) => heard.push(kinds));
    try {
      await store.registerBrowser({
        id: newId('brw', T0 + 1),
        projectId: project.id,
        recipient: 'user-1',
        secretHash: hashSecret('bs_duty'),
        now: T0 + 1,
      });
      const messages = await store.listWebhookMessages({
        endpointId: created.endpoint.id,
        status: null,
        since: null,
        before: null,
        limit: 10,
      });
      expect(messages.map((message) => message.eventType)).toEqual(['browser.connected']);
      expect(heard.flat()).toContain(WEBHOOK_JOB_KIND);
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
