import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createMemoryHub, createTidings, type Hub, type HubMessage, silentLogger, type Tidings } from '@tidings/core';
import { tidingsHono } from '@tidings/hono';
import { createSqliteStore, type SqliteStore } from '@tidings/store-sqlite';
import { Hono } from 'hono';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type PageServer, startPageServer, watchPage } from './harness.js';

/**
 * Lists that converge, in Chromium, across three instances and two devices: instances on one
 * SQLite file whose hub hands each inbox event and delivery on after a random delay of its own
 * (as Redis does between instances: no order across publishers; inbox events later than
 * deliveries, so that a send often overtakes the marks made before it), a laptop with two tabs on
 * the first instance and a phone on the second, every `<tidings-inbox>` read once and closed again
 * (a closed list follows every change but marks nothing seen by itself, which would mend a
 * misapplied change). Each run sends 18 notifications through the third instance while the tabs
 * and the back end read, archive, unarchive and mark all; then every tab's list must equal
 * `GET …/inbox`, item by item. Twenty runs in a row (`INBOX_CONVERGE_RUNS` sets another number);
 * with the cut-off of a mark of all ignored by the lists, the first run fails.
 */

const RUNS = Number(process.env.INBOX_CONVERGE_RUNS) || 20;
const SENDS = 18;

let dir: string;
const stores: SqliteStore[] = [];
const instances: Tidings[] = [];
const servers: Server[] = [];
const urls: string[] = [];
let liveKey: string;
const pageServers: PageServer[] = [];
let browser: Browser;

/**
 * The in-process hub, with every delivery and inbox event handed on after a random delay of its
 * own: inbox events up to `maxDelayMs`, deliveries up to a sixth of it, so that a new item often
 * overtakes the marks made before it (a mark of all crossing a send).
 */
function jitteringHub(inner: Hub, maxDelayMs: number): Hub {
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const later = (message: HubMessage) => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        void inner.publish([message]);
      },
      Math.random() * (message.type === 'inbox' ? maxDelayMs : maxDelayMs / 6),
    );
    timers.add(timer);
  };
  return {
    ...inner,
    lossless: false,
    async publish(messages) {
      for (const message of messages) {
        if (message.type === 'inbox' || message.type === 'deliver') later(message);
        else await inner.publish([message]);
      }
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await inner.close();
    },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tidings-converge-'));
  const hub = jitteringHub(createMemoryHub(), 240);
  const unlimited = { perKey: 1e6, perProject: 1e6, perAccount: 1e6, connectPerIp: 1e6, eventsPerIp: 1e6 };
  for (let i = 0; i < 3; i++) {
    const store = createSqliteStore({ path: join(dir, 'inbox.db') });
    stores.push(store);
    const tidings = createTidings({ store, hub, logger: silentLogger, sweepIntervalMs: 0, limits: unlimited });
    instances.push(tidings);
    const app = new Hono().route('/', tidingsHono(tidings));
    const port = await new Promise<number>((resolve) => {
      servers.push(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server);
    });
    urls.push(`http://127.0.0.1:${port}`);
  }
  const admin = instances[0]!.admin;
  const account = await admin.createAccount({ email: 'a@example.com', verified: true });
  const project = await admin.createProject({ accountId: account.id, name: 'Shop' });
  liveKey = (await admin.createKey({ projectId: project.id, mode: 'live' })).key!;
  // The laptop's pages talk to the first instance, the phone's to the second.
  pageServers.push(await startPageServer(urls[0]!, liveKey, { inbox: true }));
  pageServers.push(await startPageServer(urls[1]!, liveKey, { inbox: true }));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const pageServer of pageServers) await pageServer.close();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  for (const tidings of instances) await tidings.close();
  for (const store of stores) await store.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)]!;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function api(instance: number, path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(`${urls[instance]}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
  });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response;
}

interface Row {
  id: string;
  unread: boolean;
}

/** The recipient's items that are not archived, as the API lists them. */
async function serverRows(recipient: string): Promise<Row[]> {
  const page = (await (await api(pick([0, 1, 2]), `/v1/recipients/${recipient}/inbox?limit=100`)).json()) as {
    data: { id: string; read_at: string | null }[];
  };
  return page.data.map((item) => ({ id: item.id, unread: item.read_at === null }));
}

/** The rows `<tidings-inbox>` shows in `page`. */
function shownRows(page: Page): Promise<Row[]> {
  return page.evaluate(() =>
    [
      ...(document
        .querySelector('tidings-inbox')!
        .shadowRoot!.querySelectorAll('[part~=item]') as NodeListOf<HTMLElement>),
    ].map((row) => ({ id: row.dataset.id!, unread: (row.getAttribute('part') ?? '').split(' ').includes('unread') })),
  );
}

async function openTab(
  closed: boolean,
  context: BrowserContext,
  site: PageServer,
  recipient: string,
  watchers: ReturnType<typeof watchPage>[],
) {
  const page = await context.newPage();
  watchers.push(watchPage(page));
  await page.goto(`${site.url}/?${new URLSearchParams({ recipient, share: '1' })}`);
  await page.waitForFunction(() => window.__statuses.some((entry) => entry.status === 'open'), null, {
    timeout: 15_000,
  });
  await page.evaluate(() => document.querySelector('tidings-inbox')!.setAttribute('page-size', '100'));
  const bell = page.locator('tidings-inbox [part~=bell]');
  await bell.click();
  await page.locator('tidings-inbox [part~=loading]').waitFor({ state: 'hidden' });
  // Closed again, the list still follows every change, but marks nothing seen by itself: a mark
  // of its own would carry a new item's whole state and mend what a misapplied change broke.
  if (closed) await bell.click();
  return page;
}

/** One run: the race, then every tab's list against the server's. */
async function race(recipient: string): Promise<void> {
  const watchers: ReturnType<typeof watchPage>[] = [];
  const laptop = await browser.newContext();
  const phone = await browser.newContext({ viewport: { width: 390, height: 800 } });
  try {
    const tabs = [
      await openTab(true, laptop, pageServers[0]!, recipient, watchers),
      await openTab(true, laptop, pageServers[0]!, recipient, watchers),
      await openTab(true, phone, pageServers[1]!, recipient, watchers),
    ];
    const sending = (async () => {
      for (let n = 1; n <= SENDS; n++) {
        await api(2, '/v1/notifications', {
          method: 'POST',
          body: JSON.stringify({ recipient, title: `#${n}` }),
        });
        await pause(Math.random() * 40);
      }
    })();
    const marking = (async () => {
      const actions = ['read', 'unread', 'archive', 'unarchive', 'seen'] as const;
      for (let n = 0; n < 14; n++) {
        await pause(Math.random() * 60);
        const ids = (await serverRows(recipient)).map((row) => row.id);
        const all = Math.random() < 0.5;
        const action = all ? pick(['read', 'seen', 'archive', 'unarchive'] as const) : pick(actions);
        const named = all ? ('all' as const) : [pick(ids.length ? ids : ['ntf_00000000000000000000000000'])];
        if (Math.random() < 0.5) {
          const body = named === 'all' ? { action, all: true } : { action, ids: named };
          await api(pick([0, 1, 2]), `/v1/recipients/${recipient}/inbox/mark`, {
            method: 'POST',
            body: JSON.stringify(body),
          });
        } else {
          await pick(tabs).evaluate(
            ([markAction, markIds]) =>
              (
                window.__connection as unknown as {
                  inbox: { mark(action: string, ids: string[] | 'all'): Promise<unknown> };
                }
              ).inbox.mark(markAction, markIds),
            [action, named] as const,
          );
        }
      }
    })();
    await Promise.all([sending, marking]);
    const archived = (await (await api(0, `/v1/recipients/${recipient}/inbox?archived=true&limit=100`)).json()) as {
      data: unknown[];
    };
    expect((await serverRows(recipient)).length + archived.data.length).toBe(SENDS);
    for (const tab of tabs) {
      await expect.poll(() => shownRows(tab), { timeout: 15_000, interval: 100 }).toEqual(await serverRows(recipient));
    }
    expect(watchers.flatMap((watcher) => watcher.pageErrors)).toEqual([]);
  } finally {
    await laptop.close();
    await phone.close();
  }
}

describe('inbox lists across three instances and two devices', () => {
  it(`equal the server’s after a mixed race, ${RUNS} runs in a row`, async () => {
    for (let run = 1; run <= RUNS; run++) {
      await race(`race-${run}-${Math.random().toString(36).slice(2, 8)}`).catch((error: unknown) => {
        throw new Error(`run ${run}: ${String(error)}`);
      });
    }
  }, 1_200_000);
});
