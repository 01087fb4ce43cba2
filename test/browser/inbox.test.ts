import type { Server } from 'node:http';
import {
  createServer as createTcpServer,
  type Socket,
  type Server as TcpServer,
  connect as tcpConnect,
} from 'node:net';
import { serve } from '@hono/node-server';
import { createTidings, silentLogger, type Tidings } from '@tidings/core';
import { tidingsHono } from '@tidings/hono';
import { createSqliteStore } from '@tidings/store-sqlite';
import { Hono } from 'hono';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './dashboard-harness.js';
import { launchChromium, type PageServer, startPageServer, watchPage } from './harness.js';

/**
 * The recipient's inbox across devices: two browser contexts of one recipient (a laptop with two
 * tabs, a phone), each page with `<tidings-inbox>` from tidings-inbox.global.js, against Tidings
 * embedded in this process. A mark on one device reaches the badge of every tab of the other
 * within a second; a notification sent while a device is offline is in its list when it is back.
 */

let tidings: Tidings;
let server: Server;
let tidingsUrl: string;
let sendKey: string;
let pageServer: PageServer;
/** The phone's page: its way to Tidings goes through a cable the test can pull. */
let phonePageServer: PageServer;
let cable: Cable;
let browser: Browser;
const contexts: BrowserContext[] = [];
const watchers: ReturnType<typeof watchPage>[] = [];

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
  pageServer = await startPageServer(tidingsUrl, tokenKey, { inbox: true });
  cable = await startCable(port);
  phonePageServer = await startPageServer(cable.url, tokenKey, { inbox: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await pageServer?.close();
  await phonePageServer?.close();
  cable?.close();
  await tidings?.close();
  server?.closeAllConnections();
  server?.close();
});

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
  expect(watchers.splice(0).flatMap((watcher) => watcher.pageErrors)).toEqual([]);
});

/** A TCP proxy to Tidings: `unplug()` drops every connection through it and refuses new ones until `plug()`. */
interface Cable {
  url: string;
  unplug(): void;
  plug(): void;
  close(): void;
}

async function startCable(port: number): Promise<Cable> {
  const sockets = new Set<Socket>();
  let plugged = true;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const proxy: TcpServer = createTcpServer((client) => {
    if (!plugged) return void client.destroy();
    const upstream = tcpConnect(port, '127.0.0.1');
    track(client);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    unplug() {
      plugged = false;
      for (const socket of sockets) socket.destroy();
    },
    plug() {
      plugged = true;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      proxy.close();
    },
  };
}

async function send(recipient: string, title: string): Promise<string> {
  const response = await fetch(`${tidingsUrl}/v1/notifications`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${sendKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient, title, body: `About ${title}` }),
  });
  const body = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.id;
}

/** A device: a browser context (its own profile), whose tabs share one connection. */
async function device(width = 1280): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  contexts.push(context);
  return context;
}

/** A tab of the customer's page for `recipient`, open and showing its counts. */
async function openTab(context: BrowserContext, recipient: string, site = pageServer): Promise<Page> {
  const page = await context.newPage();
  watchers.push(watchPage(page));
  await page.goto(`${site.url}/?${new URLSearchParams({ recipient, share: '1' })}`);
  await page.waitForFunction(() => window.__statuses.some((entry) => entry.status === 'open'), null, {
    timeout: 15_000,
  });
  return page;
}

const bell = (page: Page) => page.locator('tidings-inbox [part~=bell]');
const badgeLabel = (page: Page) => bell(page).getAttribute('aria-label');
const titles = (page: Page) => page.locator('tidings-inbox [part~=title]').allTextContents();

/** Waits until the bell of every page says `unread`, all of them within `timeoutMs` from now. */
async function expectUnread(pages: Page[], unread: number, timeoutMs = 15_000) {
  const started = Date.now();
  await Promise.all(
    pages.map((page) =>
      expect.poll(() => badgeLabel(page), { timeout: timeoutMs, interval: 25 }).toBe(`Notifications, ${unread} unread`),
    ),
  );
  expect(Date.now() - started).toBeLessThanOrEqual(timeoutMs);
}

describe('the inbox across tabs and devices', () => {
  it('a mark on one device reaches the badge of both tabs of the other within a second', async () => {
    const laptop = await device();
    const phone = await device(390);
    const tabs = [await openTab(laptop, 'ann'), await openTab(laptop, 'ann')];
    const handset = await openTab(phone, 'ann');
    const everyPage = [...tabs, handset];
    await expectUnread(everyPage, 0);

    for (const title of ['First', 'Second', 'Third']) await send('ann', title);
    await expectUnread(everyPage, 3);

    await bell(handset).click();
    await expect.poll(() => titles(handset)).toEqual(['Third', 'Second', 'First']);
    const second = handset.locator('tidings-inbox [part~=item]').nth(1);
    await second.getByRole('button', { name: 'Mark read' }).click();
    await expectUnread(everyPage, 2, 1000);

    // And back from a tab of the laptop: mark all read.
    await bell(tabs[1]!).click();
    await expect.poll(() => titles(tabs[1]!)).toEqual(['Third', 'Second', 'First']);
    await tabs[1]!.locator('tidings-inbox').getByRole('button', { name: 'Mark all read' }).click();
    await expectUnread(everyPage, 0, 1000);
    await expect
      .poll(() => handset.locator('tidings-inbox [part~="unread"]').count(), { timeout: 1000, interval: 25 })
      .toBe(0);
  });

  it('a notification sent while a device is offline is in its list when it is back', async () => {
    const laptop = await device();
    const phone = await device(390);
    const desk = await openTab(laptop, 'bob');
    const handset = await openTab(phone, 'bob', phonePageServer);
    await send('bob', 'Before');
    await expectUnread([desk, handset], 1);
    await bell(handset).click();
    await expect.poll(() => titles(handset)).toEqual(['Before']);

    cable.unplug();
    const offline = handset.locator('tidings-inbox [part~=offline]');
    await expect.poll(() => offline.isVisible()).toBe(true);
    await send('bob', 'While away');
    await expectUnread([desk], 2);
    expect(await titles(handset)).toEqual(['Before']);

    cable.plug();
    await expect.poll(() => titles(handset), { timeout: 30_000 }).toEqual(['While away', 'Before']);
    await expectUnread([handset], 2);
    expect(await offline.isVisible()).toBe(false);
  });

  for (const width of [1280, 390]) {
    it(`the element passes axe against the real server at ${width} px, closed and open`, async () => {
      const context = await device(width);
      const page = await openTab(context, `cat-${width}`);
      await send(`cat-${width}`, 'Your order shipped');
      await expectUnread([page], 1);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await bell(page).click();
      await expect.poll(() => titles(page)).toEqual(['Your order shipped']);
      expect(await seriousAxeViolations(page)).toEqual([]);
      const box = (await page.locator('tidings-inbox [part~=panel]').boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
    });
  }
});
