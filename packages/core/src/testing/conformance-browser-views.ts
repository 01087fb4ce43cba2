import { describe, expect, it } from 'vitest';
import type { AccountStore, BrowserStore, PushStore } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { hashSecret } from '../shared/secrets.js';
import { type GetStore, seedBrowser, seedProject, T0 } from './fixtures.js';

const P256DH = `B${'A'.repeat(86)}`;
const AUTH = 'A'.repeat(22);

/** What a dashboard reads of browsers and recipients: one browser of a project, a recipient's browsers. */
export function browserViewConformance(getStore: GetStore<AccountStore & BrowserStore & PushStore>): void {
  describe('browser views', () => {
    it('reads one browser of a project with its user agent, path, open stream and push endpoint', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const id = newId('brw', T0);
      const browser = await store.registerBrowser({
        id,
        projectId: project.id,
        recipient: 'user-1',
        secretHash: hashSecret('bs_view'),
        now: T0,
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0',
        connectedBy: 'stream',
      });
      expect(await store.getBrowserView({ projectId: project.id, browserId: id })).toEqual({
        browser,
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0',
        connectedBy: 'stream',
        streamOpen: false,
        pushEndpoint: null,
      });

      await store.holdBrowsers({ instanceId: 'ins_a', browserIds: [id], now: T0 + 10 });
      await store.putPushSubscription({
        browserId: id,
        endpoint: 'https://push.example/sub/secret-path',
        p256dh: P256DH,
        auth: AUTH,
        expiresAt: null,
        now: T0 + 20,
      });
      expect(await store.getBrowserView({ projectId: project.id, browserId: id })).toMatchObject({
        streamOpen: true,
        pushEndpoint: 'https://push.example/sub/secret-path',
      });

      // Disconnected: no stream counts as open, and the subscription went with it.
      await store.disconnectBrowser({ browserId: id, reason: 'browser_disconnected', now: T0 + 30 });
      expect(await store.getBrowserView({ projectId: project.id, browserId: id })).toMatchObject({
        browser: { connected: false, disconnectReason: 'browser_disconnected', disconnectedAt: T0 + 30 },
        streamOpen: false,
        pushEndpoint: null,
      });
    });

    it('keeps null for what a registration did not give, and reads nothing of another project', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const other = await store.createProject({
        id: newId('proj', T0),
        accountId: project.accountId,
        name: 'Other',
        now: T0,
        maxProjects: 10,
      });
      if (other.kind !== 'created') throw new Error(other.kind);
      const browser = await seedBrowser(store, project.id, 'user-1');
      expect(await store.getBrowserView({ projectId: project.id, browserId: browser.id })).toMatchObject({
        userAgent: null,
        connectedBy: null,
      });
      expect(await store.getBrowserView({ projectId: other.project.id, browserId: browser.id })).toBeNull();
      expect(await store.getBrowserView({ projectId: project.id, browserId: 'brw_unknown' })).toBeNull();
      expect(
        await store.listRecipientBrowsers({ projectId: other.project.id, recipient: 'user-1', limit: 10 }),
      ).toBeNull();
    });

    it('lists a recipient’s browsers, newest first and at most the limit; null for an unknown recipient', async () => {
      const store = getStore();
      const project = await seedProject(store);
      // A connect token makes the recipient before any browser.
      await store.createConnectToken({
        hash: hashSecret('ct_views'),
        projectId: project.id,
        recipient: 'odd:id@example.com',
        now: T0,
        expiresAt: T0 + 1000,
      });
      expect(
        await store.listRecipientBrowsers({ projectId: project.id, recipient: 'odd:id@example.com', limit: 10 }),
      ).toEqual({ createdAt: T0, browsers: [] });

      const first = await seedBrowser(store, project.id, 'odd:id@example.com', T0 + 1);
      const second = await store.registerBrowser({
        id: newId('brw', T0 + 2),
        projectId: project.id,
        recipient: 'odd:id@example.com',
        secretHash: hashSecret('bs_second'),
        now: T0 + 2,
        userAgent: 'Firefox/133.0',
        connectedBy: 'poll',
      });
      const third = await seedBrowser(store, project.id, 'odd:id@example.com', T0 + 3);
      await seedBrowser(store, project.id, 'someone-else', T0 + 4);
      await store.disconnectBrowser({ browserId: first.id, reason: 'browser_stale', now: T0 + 5 });

      const all = await store.listRecipientBrowsers({
        projectId: project.id,
        recipient: 'odd:id@example.com',
        limit: 10,
      });
      expect(all?.createdAt).toBe(T0);
      expect(all?.browsers.map((view) => view.browser.id)).toEqual([third.id, second.id, first.id]);
      expect(all?.browsers[1]).toMatchObject({ userAgent: 'Firefox/133.0', connectedBy: 'poll' });
      expect(all?.browsers[2]?.browser).toMatchObject({ connected: false, disconnectReason: 'browser_stale' });

      const page = await store.listRecipientBrowsers({
        projectId: project.id,
        recipient: 'odd:id@example.com',
        limit: 2,
      });
      expect(page?.browsers.map((view) => view.browser.id)).toEqual([third.id, second.id]);
      expect(await store.listRecipientBrowsers({ projectId: project.id, recipient: 'nobody', limit: 10 })).toBeNull();
    });
  });
}
