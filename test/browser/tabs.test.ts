import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createTidings, silentLogger, type Tidings } from '@tidings/core';
import { quietPeriod } from '@tidings/core/testing';
import { tidingsHono } from '@tidings/hono';
import { createSqliteStore } from '@tidings/store-sqlite';
import { Hono } from 'hono';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium, type PageServer, startPageServer, until, watchPage } from './harness.js';

/**
 * Tabs of one browser share one connection: four tabs of the customer's page in one Chromium
 * profile, against Tidings embedded in this process, so that the test can ask the server how many
 * streams it holds (`openStreams()`).
 */

interface Attempt {
  id: string;
  browser_id: string;
  status: string;
}
interface Notification {
  id: string;
  attempts: Attempt[];
}

let tidings: Tidings;
let server: Server;
let tidingsUrl: string;
let sendKey: string;
let pageServer: PageServer;
let browser: Browser;

beforeAll(async () => {
  tidings = createTidings({
    store: createSqliteStore({ path: ':memory:' }),
    logger: silentLogger,
    sweepIntervalMs: 0,
    retryMs: 500,
    limits: { perKey: 1e6, perProject: 1e6, perAccount: 1e6, connectPerIp: 1e6, eventsPerIp: 1e6 },
  });
  const account = await tidings.admin.createAccount({ email: 'a@example.com', verified: true });
  const project = await tidings.admin.createProject({ accountId: account.id, name: 'Shop' });
  const tokenKey = (await tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key!;
  sendKey = (await tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key!;
  const app = new Hono().route('/', tidingsHono(tidings));
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server;
  });
  tidingsUrl = `http://127.0.0.1:${port}`;
  pageServer = await startPageServer(tidingsUrl, tokenKey);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await pageServer?.close();
  await tidings?.close();
  server?.closeAllConnections();
  server?.close();
});

async function send(recipient: string, title: string): Promise<Notification> {
  const response = await fetch(`${tidingsUrl}/v1/notifications`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${sendKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient, title }),
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body as Notification;
}

function read(id: string): Promise<Notification> {
  return fetch(`${tidingsUrl}/v1/notifications/${id}`, { headers: { Authorization: `Bearer ${sendKey}` } }).then(
    (response) => response.json() as Promise<Notification>,
  );
}

/** Waits until the server holds `count` open streams, and checks that it stays so for a moment. */
async function expectOpenStreams(count: number) {
  await until(
    async () => tidings.openStreams(),
    (open) => open === count,
    `${count} open stream(s)`,
  );
  await quietPeriod(300, 'a stream more than the tabs should hold');
  expect(tidings.openStreams()).toBe(count);
}

interface Tab {
  page: Page;
  /** Requests this tab made to the stream endpoint and to the customer's token endpoint. */
  connects: number[];
  tokens: number;
  waitFor: (condition: () => boolean, what: string, timeoutMs?: number) => Promise<void>;
}

let context: BrowserContext;
let watchers: ReturnType<typeof watchPage>[] = [];

beforeEach(async () => {
  // One context is one browser profile: its tabs share Web Locks and BroadcastChannel.
  context = await browser.newContext();
  watchers = [];
});

afterEach(async () => {
  await context.close();
  expect(watchers.flatMap((watcher) => watcher.pageErrors)).toEqual([]);
});

async function openTab(recipient: string, options: { share?: boolean; initScript?: () => void } = {}): Promise<Tab> {
  const page = await context.newPage();
  if (options.initScript) await page.addInitScript(options.initScript);
  const watcher = watchPage(page);
  watchers.push(watcher);
  const tab: Tab = {
    page,
    connects: [],
    tokens: 0,
    waitFor: async (condition, what, timeoutMs = 15_000) => {
      try {
        await page.waitForFunction(condition, null, { timeout: timeoutMs, polling: 50 });
      } catch (error) {
        throw new Error(`waiting for ${what}: ${(error as Error).message.split('\n')[0]}\n${await watcher.describe()}`);
      }
    },
  };
  page.on('request', (request) => {
    if (request.url().includes('/v1/connect/')) tab.connects.push(Date.now());
    if (request.url().includes('/token')) tab.tokens++;
  });
  const query = new URLSearchParams({ recipient, ...(options.share === false ? {} : { share: '1' }) });
  await page.goto(`${pageServer.url}/?${query}`);
  await tab.waitFor(() => window.__statuses.some((entry) => entry.status === 'open'), 'the tab to open');
  return tab;
}

async function openTabs(recipient: string, count: number, options?: Parameters<typeof openTab>[1]) {
  const tabs: Tab[] = [];
  for (let index = 0; index < count; index++) tabs.push(await openTab(recipient, options));
  return tabs;
}

const attemptIds = (tab: Tab) => tab.page.evaluate(() => window.__received.map((item) => item.attempt_id));
const browserIdOf = (tab: Tab) => tab.page.evaluate(() => window.__connection.browserId());
const isLeader = (tab: Tab) =>
  tab.page.evaluate(() => window.__statuses.filter((entry) => entry.status === 'open').at(-1)?.leader === true);

async function leaderOf(tabs: Tab[]): Promise<Tab> {
  const leaders: Tab[] = [];
  for (const tab of tabs) if (await isLeader(tab)) leaders.push(tab);
  expect(leaders).toHaveLength(1);
  return leaders[0]!;
}

/** Waits until every tab got exactly `expected` attempt ids, in order, once each. */
async function expectEveryTabGot(tabs: Tab[], expected: string[]) {
  for (const tab of tabs) {
    await until(
      () => attemptIds(tab),
      (ids) => ids.length >= expected.length,
      'every notification in every tab',
    );
  }
  // A moment for a late duplicate to show up, then the exact lists.
  await quietPeriod(300, 'a late duplicate');
  for (const tab of tabs) expect(await attemptIds(tab)).toEqual(expected);
}

/** Holds this tab's next stream request until `release()`; `requested` resolves when it is made. */
async function holdNextConnect(page: Page) {
  let arrived!: () => void;
  let release!: () => void;
  const requested = new Promise<void>((resolve) => (arrived = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  await page.route(/\/v1\/connect\//, async (route: Route) => {
    if (held) return route.continue();
    held = true;
    arrived();
    await released;
    await route.continue();
  });
  return { requested, release };
}

describe('tabs of one browser share one connection', () => {
  it('four tabs: the server holds one stream, one tab asks for a token, every tab gets every notification once', async () => {
    const tabs = await openTabs('ann', 4);
    await expectOpenStreams(1);
    const leader = await leaderOf(tabs);
    // Only the leader connected and asked the customer's back end for a token.
    expect(tabs.map((tab) => tab.connects.length > 0)).toEqual(tabs.map((tab) => tab === leader));
    expect(tabs.map((tab) => tab.tokens)).toEqual(tabs.map((tab) => (tab === leader ? 1 : 0)));
    // One browser for the four tabs.
    const browserIds = new Set(await Promise.all(tabs.map(browserIdOf)));
    expect([...browserIds]).toEqual([expect.stringMatching(/^brw_/)]);

    const sent = [await send('ann', 'one'), await send('ann', 'two'), await send('ann', 'three')];
    for (const notification of sent) expect(notification.attempts).toHaveLength(1);
    await expectEveryTabGot(
      tabs,
      sent.map((notification) => notification.attempts[0]!.id),
    );
    // One delivered receipt per attempt made each one delivered.
    for (const notification of sent) {
      await until(
        () => read(notification.id),
        (current) => current.attempts[0]?.status === 'delivered',
        'the attempt to be delivered',
      );
    }

    // A tab's own receipt goes from that tab, with the shared browser.
    const follower = tabs.find((tab) => tab !== leader)!;
    await follower.page.evaluate((id) => {
      (window.__connection as unknown as { clicked(id: string): void }).clicked(id);
    }, sent[0]!.attempts[0]!.id);
    await until(
      () => read(sent[0]!.id),
      (current) => (current.attempts[0] as unknown as { clicked_at: string | null }).clicked_at !== null,
      'the click of a follower tab recorded',
    );
  });

  it('closing the leader tab: another takes over within 2 s and a notification sent meanwhile reaches every tab', async () => {
    const tabs = await openTabs('bea', 4);
    await expectOpenStreams(1);
    const leader = await leaderOf(tabs);
    const before = await send('bea', 'before');
    const followers = tabs.filter((tab) => tab !== leader);
    await expectEveryTabGot(tabs, [before.attempts[0]!.id]);

    const holds = await Promise.all(followers.map((tab) => holdNextConnect(tab.page)));
    const closedAt = Date.now();
    await leader.page.close({ runBeforeUnload: false });
    await Promise.race(holds.map((hold) => hold.requested));
    const takeoverMs = Date.now() - closedAt;
    expect(takeoverMs).toBeLessThan(2000);

    // Sent after the leader is gone and before the new one's stream is open.
    const meanwhile = await send('bea', 'meanwhile');
    expect(meanwhile.attempts).toEqual([expect.objectContaining({ browser_id: before.attempts[0]!.browser_id })]);
    for (const hold of holds) hold.release();

    await expectEveryTabGot(followers, [before.attempts[0]!.id, meanwhile.attempts[0]!.id]);
    const next = await leaderOf(followers);
    const open = (await next.page.evaluate(() => window.__statuses)).filter((entry) => entry.status === 'open').at(-1);
    expect(open).toMatchObject({ leader: true, resumed: true, browserId: before.attempts[0]!.browser_id });
    await expectOpenStreams(1);
    await until(
      () => read(meanwhile.id),
      (current) => current.attempts[0]?.status === 'delivered',
      'the one sent meanwhile delivered',
    );
  });

  it('freezing the leader tab: another takes over within 2 s and nothing sent meanwhile is lost', async () => {
    const tabs = await openTabs('cid', 4);
    await expectOpenStreams(1);
    const leader = await leaderOf(tabs);
    const followers = tabs.filter((tab) => tab !== leader);

    const holds = await Promise.all(followers.map((tab) => holdNextConnect(tab.page)));
    // Chromium driven by Playwright ignores `Page.setWebLifecycleState` (the page stays active), so
    // the leader is frozen the way that does work: its script paused in the debugger. As in a
    // frozen tab, its timers and message handlers stop while it keeps its lock and its stream.
    const cdp = await context.newCDPSession(leader.page);
    await cdp.send('Debugger.enable');
    const frozenAt = Date.now();
    await cdp.send('Debugger.pause');
    await Promise.race(holds.map((hold) => hold.requested));
    expect(Date.now() - frozenAt).toBeLessThan(2000);

    const meanwhile = await send('cid', 'while the leader is frozen');
    expect(meanwhile.attempts).toHaveLength(1);
    for (const hold of holds) hold.release();
    await expectEveryTabGot(followers, [meanwhile.attempts[0]!.id]);
    const next = await leaderOf(followers);
    expect(next).not.toBe(leader);

    // Woken up, the former leader finds its lock taken: it drops its stream and follows.
    await cdp.send('Debugger.resume');
    await expectOpenStreams(1);
    await expectEveryTabGot(tabs, [meanwhile.attempts[0]!.id]);
    expect(await isLeader(leader)).toBe(false);
    const after = await send('cid', 'after the thaw');
    await expectEveryTabGot(tabs, [meanwhile.attempts[0]!.id, after.attempts[0]!.id]);
  });

  for (const [missing, initScript] of [
    [
      'BroadcastChannel',
      () => {
        delete (window as { BroadcastChannel?: unknown }).BroadcastChannel;
      },
    ],
    [
      'Web Locks',
      () => {
        Object.defineProperty(Navigator.prototype, 'locks', { value: undefined, configurable: true });
      },
    ],
  ] as const) {
    it(`without ${missing}, each tab connects on its own as before`, async () => {
      const tabs = await openTabs(`dee-${missing.length}`, 3, { initScript });
      await expectOpenStreams(3);
      const browserIds = new Set(await Promise.all(tabs.map(browserIdOf)));
      expect(browserIds.size).toBe(3);
      for (const tab of tabs) expect(tab.connects.length).toBeGreaterThan(0);
      const sent = await send(`dee-${missing.length}`, 'to every tab');
      expect(sent.attempts).toHaveLength(3);
      for (const tab of tabs) {
        await until(
          () => attemptIds(tab),
          (ids) => ids.length >= 1,
          'the notification in each tab',
        );
        const [id] = await attemptIds(tab);
        expect(sent.attempts.find((attempt) => attempt.id === id)?.browser_id).toBe(await browserIdOf(tab));
      }
    });
  }
});
