import { describe, expect, it } from 'vitest';
import type { Store } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import {
  DAY_MS,
  type GetStore,
  readBack,
  seedBrowser,
  seedProject,
  send,
  sendCreated,
  T0,
} from '../testing/fixtures.js';

/** Sends `count` live notifications to a recipient, a millisecond apart; returns their ids, oldest first. */
async function sendMany(store: Store, projectId: string, recipient: string, count: number, from = T0) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await sendCreated(store, { projectId, recipient, now: from + i, title: `n${i}` });
    ids.push(created.notification.id);
  }
  return ids;
}

async function readyRecipient(store: Store, recipient = 'user-1') {
  const project = await seedProject(store);
  const browser = await seedBrowser(store, project.id, recipient);
  return { project, browser, recipient };
}

async function addEndpoint(store: Store, projectId: string, events: string[]) {
  const id = newId('whe', T0);
  await store.createWebhookEndpoint({
    id,
    projectId,
    url: 'https://hooks.example/in',
    description: null,
    events,
    secret: 'whsec_test',
    now: T0,
    maxEndpoints: 10,
  });
  return id;
}

async function messagesOf(store: Store, endpointId: string) {
  const messages = await store.listWebhookMessages({ endpointId, status: null, since: null, before: null, limit: 100 });
  return messages.map((message) => ({ type: message.eventType, payload: message.payload as { data: unknown } }));
}

/** The inbox of each recipient (docs/inbox.md): items, marks, counts, reminders and retention. */
export function inboxConformance(getStore: GetStore<Store>): void {
  describe('inbox', () => {
    it('makes every live notification an unread, unseen item, and no test-mode one', async () => {
      const store = getStore();
      const { project, recipient } = await readyRecipient(store);
      const [first, second] = await sendMany(store, project.id, recipient, 2);
      await sendCreated(store, { projectId: project.id, recipient, mode: 'test', now: T0 + 10 });
      const page = await store.listInbox({
        projectId: project.id,
        recipient,
        unread: false,
        archived: false,
        limit: 10,
        startingAfter: null,
      });
      expect(page.items.map((item) => item.notificationId)).toEqual([second, first]);
      expect(page.items[0]).toMatchObject({
        projectId: project.id,
        recipient,
        title: 'n1',
        body: 'Body text',
        data: { order: 42, nested: { ok: true } },
        createdAt: T0 + 1,
        seenAt: null,
        readAt: null,
        archivedAt: null,
      });
      expect(page.hasMore).toBe(false);
      expect(page.counts).toMatchObject({ total: 2, unread: 2, unseen: 2 });
      expect(await store.getInboxItem({ projectId: project.id, notificationId: first! })).toEqual(page.items[1]);
      expect(await store.getInboxItem({ projectId: 'proj_other', notificationId: first! })).toBeNull();
    });

    it('pages newest first with a cursor, and filters unread and archived', async () => {
      const store = getStore();
      const { project, recipient } = await readyRecipient(store);
      const ids = await sendMany(store, project.id, recipient, 5);
      const list = (input: { unread?: boolean; archived?: boolean; limit?: number; after?: string | null }) =>
        store.listInbox({
          projectId: project.id,
          recipient,
          unread: input.unread ?? false,
          archived: input.archived ?? false,
          limit: input.limit ?? 2,
          startingAfter: input.after ?? null,
        });
      const first = await list({});
      expect(first.items.map((item) => item.notificationId)).toEqual([ids[4], ids[3]]);
      expect(first.hasMore).toBe(true);
      const second = await list({ after: ids[3] });
      expect(second.items.map((item) => item.notificationId)).toEqual([ids[2], ids[1]]);
      const last = await list({ after: ids[1] });
      expect(last.items.map((item) => item.notificationId)).toEqual([ids[0]]);
      expect(last.hasMore).toBe(false);

      await store.markInbox({
        projectId: project.id,
        recipient,
        action: 'read',
        target: { ids: [ids[4]!] },
        now: T0 + 100,
      });
      await store.markInbox({
        projectId: project.id,
        recipient,
        action: 'archive',
        target: { ids: [ids[0]!] },
        now: T0 + 100,
      });
      const unread = await list({ unread: true, limit: 10 });
      expect(unread.items.map((item) => item.notificationId)).toEqual([ids[3], ids[2], ids[1]]);
      const archived = await list({ archived: true, limit: 10 });
      expect(archived.items.map((item) => item.notificationId)).toEqual([ids[0]]);
      expect(archived.counts).toMatchObject({ total: 4, unread: 3, unseen: 3 });
    });

    it('keeps each recipient’s inbox to itself', async () => {
      const store = getStore();
      const { project } = await readyRecipient(store, 'alice');
      await seedBrowser(store, project.id, 'bob');
      const [alices] = await sendMany(store, project.id, 'alice', 1);
      await sendMany(store, project.id, 'bob', 2, T0 + 10);
      const marked = await store.markInbox({
        projectId: project.id,
        recipient: 'bob',
        action: 'read',
        target: { ids: [alices!] },
        now: T0 + 100,
      });
      expect(marked).toMatchObject({ changed: [], notFound: [alices], anyChanged: false });
      expect(marked.counts).toMatchObject({ total: 2, unread: 2, unseen: 2 });
      expect(await store.getInboxCounts({ projectId: project.id, recipient: 'alice' })).toMatchObject({
        total: 1,
        unread: 1,
        unseen: 1,
      });
    });

    it('applies each action, keeps the first time, and counts what is not archived', async () => {
      const store = getStore();
      const { project, browser, recipient } = await readyRecipient(store);
      const [a, b] = await sendMany(store, project.id, recipient, 2);
      const mark = (action: 'seen' | 'read' | 'unread' | 'archive' | 'unarchive', ids: string[], now: number) =>
        store.markInbox({ projectId: project.id, recipient, action, target: { ids }, now });

      const seen = await mark('seen', [a!], T0 + 10);
      expect(seen.changed).toHaveLength(1);
      expect(seen.changed[0]).toMatchObject({ notificationId: a, seenAt: T0 + 10, readAt: null });
      expect(seen.counts).toMatchObject({ total: 2, unread: 2, unseen: 1 });
      expect(seen.browserIds).toEqual([browser.id]);

      const read = await mark('read', [a!, b!], T0 + 20);
      expect(read.changed.map((item) => [item.notificationId, item.seenAt, item.readAt])).toEqual([
        [b, T0 + 20, T0 + 20],
        [a, T0 + 10, T0 + 20],
      ]);
      expect(read.counts).toMatchObject({ total: 2, unread: 0, unseen: 0 });

      const again = await mark('read', [a!], T0 + 30);
      expect(again).toMatchObject({ changed: [], anyChanged: false, notFound: [] });

      const unread = await mark('unread', [a!], T0 + 40);
      expect(unread.changed[0]).toMatchObject({ readAt: null, seenAt: T0 + 10 });
      expect(unread.counts).toMatchObject({ total: 2, unread: 1, unseen: 0 });

      const archived = await mark('archive', [a!], T0 + 50);
      expect(archived.changed[0]).toMatchObject({ archivedAt: T0 + 50 });
      expect(archived.counts).toMatchObject({ total: 1, unread: 0, unseen: 0 });

      const unarchived = await mark('unarchive', [a!], T0 + 60);
      expect(unarchived.changed[0]).toMatchObject({ archivedAt: null, readAt: null });
      expect(unarchived.counts).toMatchObject({ total: 2, unread: 1, unseen: 0 });
      // Every change raises the version; a mark that changed nothing leaves it.
      const [v1, v2, v3, v4, v5, v6] = [seen, read, again, unread, archived, unarchived].map(
        (result) => result.counts.version,
      );
      expect([v1! > 0, v2! > v1!, v3 === v2, v4! > v3!, v5! > v4!, v6! > v5!]).toEqual([
        true,
        true,
        true,
        true,
        true,
        true,
      ]);
    });

    it('marks all the items not archived, and unarchives all the archived', async () => {
      const store = getStore();
      const { project, recipient } = await readyRecipient(store);
      const ids = await sendMany(store, project.id, recipient, 4);
      const all = { all: true } as const;
      await store.markInbox({
        projectId: project.id,
        recipient,
        action: 'archive',
        target: { ids: [ids[0]!] },
        now: T0 + 5,
      });
      const read = await store.markInbox({
        projectId: project.id,
        recipient,
        action: 'read',
        target: all,
        now: T0 + 10,
      });
      expect(read).toMatchObject({ changed: [], anyChanged: true });
      expect(read.counts).toMatchObject({ total: 3, unread: 0, unseen: 0 });
      const archivedItem = await store.listInbox({
        projectId: project.id,
        recipient,
        unread: false,
        archived: true,
        limit: 10,
        startingAfter: null,
      });
      // The archived one was left as it was.
      expect(archivedItem.items[0]).toMatchObject({ notificationId: ids[0], readAt: null });
      const unarchived = await store.markInbox({
        projectId: project.id,
        recipient,
        action: 'unarchive',
        target: all,
        now: T0 + 20,
      });
      expect(unarchived.counts).toMatchObject({ total: 4, unread: 1, unseen: 0 });
    });

    it('says the version before each mark, and the version each live send made its item at', async () => {
      const store = getStore();
      const { project, recipient } = await readyRecipient(store);
      const first = await send(store, { projectId: project.id, recipient, now: T0, title: 'a' });
      const second = await send(store, { projectId: project.id, recipient, now: T0 + 1, title: 'b' });
      if (first.kind !== 'created' || second.kind !== 'created') throw new Error('expected two sends');
      const afterSends = await store.getInboxCounts({ projectId: project.id, recipient });
      // A store that knows it says it: each item at a version of its own, in the order of the sends.
      if (first.inboxVersion != null && second.inboxVersion != null) {
        expect(first.inboxVersion).toBeLessThan(second.inboxVersion);
        expect(second.inboxVersion).toBe(afterSends.version);
      }
      const mark = (action: 'read' | 'seen', target: { all: true } | { ids: string[] }, now: number) =>
        store.markInbox({ projectId: project.id, recipient, action, target, now });
      const one = await mark('read', { ids: [first.created.notification.id] }, T0 + 2);
      expect(one.previousVersion).toBe(afterSends.version);
      expect(one.counts.version).toBeGreaterThan(one.previousVersion);
      const all = await mark('read', { all: true }, T0 + 3);
      expect(all.previousVersion).toBe(one.counts.version);
      expect(all.counts.version).toBeGreaterThan(all.previousVersion);
      // Nothing left to change: no new version, and the one before is the one now.
      const none = await mark('seen', { all: true }, T0 + 4);
      expect(none).toMatchObject({ anyChanged: false, previousVersion: all.counts.version });
      expect(none.counts.version).toBe(all.counts.version);
    });

    it('keeps a send for the inbox of a recipient with no browser when asked: no attempt, an item, usage, jobs', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const projectId = project.id;
      expect((await send(store, { projectId, recipient: 'away', now: T0 })).kind).toBe('no-connected-browser');
      const jobs = () => [{ kind: 'inbox-unread', key: `remind:${T0}`, projectId, runAt: T0 + 60_000, payload: {} }];
      const kept = await send(store, { projectId, recipient: 'away', now: T0, keepForInbox: true, jobs });
      if (kept.kind !== 'created') throw new Error(`expected created, got ${kept.kind}`);
      expect(kept.created.attempts).toEqual([]);
      const id = kept.created.notification.id;
      expect((await readBack(store, projectId, id)).attempts).toEqual([]);
      const page = await store.listInbox({
        projectId,
        recipient: 'away',
        unread: false,
        archived: false,
        limit: 10,
        startingAfter: null,
      });
      expect(page.items.map((item) => item.notificationId)).toEqual([id]);
      expect(page.counts).toMatchObject({ total: 1, unread: 1, unseen: 1 });
      const day = new Date(T0).toISOString().slice(0, 10);
      expect(await store.getUsage({ projectId, fromDay: day, toDay: day })).toEqual([
        { day, notifications: 1, attempts: 0 },
      ]);
      expect((await store.listJobs({ projectId, kind: 'inbox-unread', limit: 10 })).map((job) => job.key)).toEqual([
        `remind:${T0}`,
      ]);
      // Test mode: kept (no attempt), and no item.
      const asTest = await send(store, { projectId, recipient: 'away', now: T0 + 1, mode: 'test', keepForInbox: true });
      expect(asTest.kind).toBe('created');
      expect((await store.getInboxCounts({ projectId, recipient: 'away' })).total).toBe(1);
    });

    it('marks the items of a browser’s attempts, and no other browser’s', async () => {
      const store = getStore();
      const { project, browser, recipient } = await readyRecipient(store);
      const other = await seedBrowser(store, project.id, 'someone-else');
      const created = await sendCreated(store, { projectId: project.id, recipient, now: T0 + 1 });
      const theirs = await sendCreated(store, { projectId: project.id, recipient: 'someone-else', now: T0 + 2 });
      const ownAttempt = created.attempts[0]!.id;
      const refused = await store.markInbox({
        projectId: project.id,
        recipient,
        action: 'read',
        target: { browserId: other.id, attemptIds: [ownAttempt, theirs.attempts[0]!.id] },
        now: T0 + 10,
      });
      expect(refused.anyChanged).toBe(false);
      const marked = await store.markInbox({
        projectId: project.id,
        recipient,
        action: 'read',
        target: { browserId: browser.id, attemptIds: [ownAttempt] },
        now: T0 + 10,
      });
      expect(marked.changed.map((item) => item.notificationId)).toEqual([created.notification.id]);
      expect(marked.counts.unread).toBe(0);
    });

    it('records notification.read once per item that became read', async () => {
      const store = getStore();
      const { project, recipient } = await readyRecipient(store);
      const endpointId = await addEndpoint(store, project.id, ['notification.read']);
      const [a, b] = await sendMany(store, project.id, recipient, 2);
      await store.markInbox({ projectId: project.id, recipient, action: 'read', target: { ids: [a!] }, now: T0 + 10 });
      await store.markInbox({ projectId: project.id, recipient, action: 'read', target: { ids: [a!] }, now: T0 + 11 });
      await store.markInbox({ projectId: project.id, recipient, action: 'seen', target: { ids: [b!] }, now: T0 + 12 });
      await store.markInbox({ projectId: project.id, recipient, action: 'read', target: { all: true }, now: T0 + 13 });
      const messages = await messagesOf(store, endpointId);
      expect(
        messages
          .map((message) => [message.type, (message.payload.data as { notification_id: string }).notification_id])
          .sort(),
      ).toEqual(
        [
          ['notification.read', a],
          ['notification.read', b],
        ].sort(),
      );
      const [ofA] = messages.filter(
        (message) => (message.payload.data as { notification_id: string }).notification_id === a,
      );
      expect(ofA!.payload.data).toEqual({ notification_id: a, recipient, read_at: new Date(T0 + 10).toISOString() });
    });

    it('reminds of an unread item once, and never of a read or archived one', async () => {
      const store = getStore();
      const { project, recipient } = await readyRecipient(store);
      const endpointId = await addEndpoint(store, project.id, ['notification.unread']);
      const [unread, read, archived] = await sendMany(store, project.id, recipient, 3);
      await store.markInbox({
        projectId: project.id,
        recipient,
        action: 'read',
        target: { ids: [read!] },
        now: T0 + 5,
      });
      await store.markInbox({
        projectId: project.id,
        recipient,
        action: 'archive',
        target: { ids: [archived!] },
        now: T0 + 5,
      });
      const runs = await Promise.all([
        store.remindUnread({ notificationId: unread!, afterSeconds: 60, now: T0 + 60_000 }),
        store.remindUnread({ notificationId: unread!, afterSeconds: 60, now: T0 + 60_001 }),
      ]);
      expect(runs.filter(Boolean)).toHaveLength(1);
      expect(await store.remindUnread({ notificationId: read!, afterSeconds: 60, now: T0 + 60_000 })).toBe(false);
      expect(await store.remindUnread({ notificationId: archived!, afterSeconds: 60, now: T0 + 60_000 })).toBe(false);
      expect(await store.remindUnread({ notificationId: 'ntf_unknown', afterSeconds: 60, now: T0 })).toBe(false);
      const messages = await messagesOf(store, endpointId);
      expect(messages).toEqual([
        {
          type: 'notification.unread',
          payload: expect.objectContaining({
            data: {
              notification_id: unread,
              recipient,
              created_at: new Date(T0).toISOString(),
              unread_after_seconds: 60,
            },
          }),
        },
      ]);
    });

    it('keeps counts exact under concurrent marks of the same items', async () => {
      const store = getStore();
      const { project, recipient } = await readyRecipient(store);
      const ids = await sendMany(store, project.id, recipient, 20);
      const actions = ['read', 'unread', 'seen', 'archive', 'unarchive', 'read'] as const;
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          store.markInbox({
            projectId: project.id,
            recipient,
            action: actions[i % actions.length]!,
            target: i % 7 === 0 ? { all: true } : { ids: [ids[i % ids.length]!, ids[(i * 3) % ids.length]!] },
            now: T0 + 100 + i,
          }),
        ),
      );
      const everything = [
        ...(
          await store.listInbox({
            projectId: project.id,
            recipient,
            unread: false,
            archived: false,
            limit: 100,
            startingAfter: null,
          })
        ).items,
        ...(
          await store.listInbox({
            projectId: project.id,
            recipient,
            unread: false,
            archived: true,
            limit: 100,
            startingAfter: null,
          })
        ).items,
      ];
      const live = everything.filter((item) => item.archivedAt === null);
      expect(await store.getInboxCounts({ projectId: project.id, recipient })).toMatchObject({
        total: live.length,
        unread: live.filter((item) => item.readAt === null).length,
        unseen: live.filter((item) => item.seenAt === null).length,
      });
    });

    it('purges items past their project’s retention, with their counts', async () => {
      const store = getStore();
      const { project, recipient } = await readyRecipient(store);
      expect(await store.getInboxRetention({ projectId: project.id })).toBe(90);
      const [old] = await sendMany(store, project.id, recipient, 1, T0 - 10 * DAY_MS);
      const [recent] = await sendMany(store, project.id, recipient, 1, T0 - DAY_MS);
      expect(await store.purgeInbox({ now: T0 })).toBe(0);
      // Another project, on the default retention, keeps an item of the same age.
      const otherId = newId('proj', T0);
      const other = await store.createProject({
        id: otherId,
        accountId: project.accountId,
        name: 'Other',
        now: T0,
        maxProjects: 10,
      });
      expect(other.kind).toBe('created');
      await seedBrowser(store, otherId, recipient);
      await sendMany(store, otherId, recipient, 1, T0 - 10 * DAY_MS);
      await store.setInboxRetention({ projectId: project.id, days: 7 });
      expect(await store.getInboxRetention({ projectId: project.id })).toBe(7);
      expect(await store.purgeInbox({ now: T0 })).toBe(1);
      expect(await store.getInboxCounts({ projectId: otherId, recipient })).toMatchObject({ total: 1 });
      const page = await store.listInbox({
        projectId: project.id,
        recipient,
        unread: false,
        archived: false,
        limit: 10,
        startingAfter: null,
      });
      expect(page.items.map((item) => item.notificationId)).toEqual([recent]);
      expect(page.counts).toMatchObject({ total: 1, unread: 1, unseen: 1 });
      // The notification itself stays.
      expect(await store.getNotification({ projectId: project.id, id: old! })).not.toBeNull();
    });

    it('deletes a project’s inbox with the project', async () => {
      const store = getStore();
      const { project, recipient } = await readyRecipient(store);
      await sendMany(store, project.id, recipient, 2);
      await store.setInboxRetention({ projectId: project.id, days: 30 });
      await store.deleteProject({ id: project.id });
      expect(await store.getInboxCounts({ projectId: project.id, recipient })).toEqual({
        total: 0,
        unread: 0,
        unseen: 0,
        version: 0,
      });
      expect(await store.getInboxRetention({ projectId: project.id })).toBe(90);
    });
  });
}
