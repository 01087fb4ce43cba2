import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './dashboard-harness.js';
import { launchChromium, watchPage } from './harness.js';

/**
 * The <tidings-inbox> element on its own, from tidings-inbox.global.js, over an inbox in the page
 * that keeps its items in memory and records every call: what the element shows, how it reads
 * the pages of the list, what it marks, and how it answers the keyboard and axe.
 */

/** Where the screenshots of the open list go. */
const artifacts = fileURLToPath(new URL('../../test-artifacts/inbox/', import.meta.url));

const script = readFileSync(
  fileURLToPath(new URL('../../packages/browser/dist/tidings-inbox.global.js', import.meta.url)),
);

/** An inbox handle in memory with `count` items, every other one read; newest first. */
const fakeInbox = `
const day = Date.parse('2026-11-28T12:00:00Z');
const count = Number(new URLSearchParams(location.search).get('items') ?? '45');
const items = Array.from({ length: count }, (_, index) => ({
  object: 'inbox_item', id: 'ntf_' + String(index).padStart(3, '0'), recipient: 'ann',
  title: 'Order ' + index + ' shipped', body: 'Parcel ' + index + ' is on its way',
  url: index === count - 1 ? '#opened-' + index : null, icon: null, tag: null, data: null,
  created_at: new Date(day + index * 60000).toISOString(),
  seen_at: null, read_at: index % 2 ? '2026-11-28T13:00:00Z' : null, archived_at: null,
})).reverse();
const listeners = new Set();
let version = 1;
window.__calls = [];
window.__status = 'open';
const counts = () => {
  const kept = items.filter((item) => !item.archived_at);
  return { object: 'inbox_counts', total: kept.length, unread: kept.filter((item) => !item.read_at).length,
    unseen: kept.filter((item) => !item.seen_at).length, version };
};
const now = () => new Date().toISOString();
const change = { seen: (item) => { item.seen_at ??= now(); }, read: (item) => { item.read_at ??= now(); item.seen_at ??= now(); },
  unread: (item) => { item.read_at = null; }, archive: (item) => { item.archived_at = now(); item.seen_at ??= now(); },
  unarchive: (item) => { item.archived_at = null; } };
window.__emit = (event) => { for (const listener of listeners) listener(event); };
/** A new item made now: the version of the inbox it was made at. */
window.__made = () => ++version;
window.__inbox = {
  status: () => window.__status,
  subscribe(listener) { listeners.add(listener); return () => listeners.delete(listener); },
  async counts() { window.__calls.push(['counts']); return counts(); },
  async list(options = {}) {
    window.__calls.push(['list', options.startingAfter ?? null]);
    const kept = items.filter((item) => !item.archived_at);
    const start = options.startingAfter ? kept.findIndex((item) => item.id === options.startingAfter) + 1 : 0;
    const data = kept.slice(start, start + (options.limit ?? 20)).map((item) => ({ ...item }));
    return { object: 'list', data, has_more: start + data.length < kept.length, counts: counts() };
  },
  async mark(action, ids) {
    window.__calls.push(['mark', action, ids]);
    const chosen = ids === 'all' ? items.filter((item) => !item.archived_at) : items.filter((item) => ids.includes(item.id));
    chosen.forEach(change[action]);
    const base = version++;
    const update = { object: 'inbox_update', action, all: ids === 'all', items: ids === 'all' ? [] : chosen.map((item) => ({ ...item })),
      not_found: [], counts: counts(), base_version: base, cutoff_version: ids === 'all' ? base : null, marked_at: now() };
    window.__emit({ type: 'update', update });
    return update;
  },
};
`;

/** The page; `late`: it gives the element its connection before the script defines the element. */
const html = (late: boolean) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Customer app</title><link rel="icon" href="data:,"></head>
<body><header style="display:flex;justify-content:space-between;align-items:center;padding:8px">
<h1 style="margin:0;font-size:20px">Customer app</h1><tidings-inbox></tidings-inbox></header>
<main><p>Orders and things.</p></main>
${late ? '' : '<script src="/tidings-inbox.global.js"></script>'}
<script>${fakeInbox}
document.querySelector('tidings-inbox').connection = { inbox: window.__inbox };
</script>${late ? '<script src="/tidings-inbox.global.js"></script>' : ''}</body></html>`;

declare global {
  interface Window {
    __calls: unknown[][];
    __status: string;
    __emit(event: unknown): void;
    __made(): number;
  }
}

let server: Server;
let url: string;
let browser: Browser;
let page: Page;
let watcher: ReturnType<typeof watchPage>;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith('/tidings-inbox.global.js')) {
      response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    } else {
      const late = request.url?.startsWith('/late') ?? false;
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html(late));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  server?.close();
});

beforeEach(async () => {
  // A context of its own: axe needs one.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  watcher = watchPage(page);
});

afterEach(async () => {
  await page.context().close();
  expect(watcher.pageErrors).toEqual([]);
});

const bell = () => page.locator('tidings-inbox').getByRole('button', { name: /^Notifications, \d+ unread$/ });
const panel = () => page.locator('tidings-inbox').getByRole('dialog', { name: 'Notifications' });
const items = () => page.locator('tidings-inbox [part~=item]');
const calls = () => page.evaluate(() => window.__calls);

/** Opens the page (`query` names another) and waits for the bell to say `unread`. */
async function openInbox(query = '', unread = 23) {
  await page.goto(`${url}/${query}`);
  await expect.poll(() => bell().getAttribute('aria-label')).toBe(`Notifications, ${unread} unread`);
}

describe('<tidings-inbox>', () => {
  it('shows the unread count on the bell, and opens a labelled list, newest first, that it marks seen', async () => {
    await openInbox();
    expect(await page.locator('tidings-inbox [part~=badge]').textContent()).toBe('23');
    expect(await bell().getAttribute('aria-expanded')).toBe('false');
    expect(await bell().getAttribute('aria-controls')).toBe('panel');
    expect(await panel().isVisible()).toBe(false);

    await bell().click();
    expect(await bell().getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => items().count()).toBe(20);
    expect(await panel().isVisible()).toBe(true);
    const titles = await page.locator('tidings-inbox [part~=title]').allTextContents();
    expect(titles.slice(0, 3)).toEqual(['Order 44 shipped', 'Order 43 shipped', 'Order 42 shipped']);
    expect(await page.locator('tidings-inbox [part~="unread"]').count()).toBe(10);
    // The page shown is marked seen, in one mark.
    await expect.poll(calls).toContainEqual(['mark', 'seen', expect.arrayContaining(['ntf_044', 'ntf_025'])]);
  });

  it('takes a connection given before the element was defined', async () => {
    await openInbox('late');
    await bell().click();
    await expect.poll(() => items().count()).toBe(20);
  });

  it('loads the next page when the end of the list comes into view', async () => {
    await openInbox();
    await bell().click();
    await expect.poll(() => items().count()).toBe(20);
    await items().nth(19).scrollIntoViewIfNeeded();
    await expect.poll(() => items().count()).toBe(40);
    await items().nth(39).scrollIntoViewIfNeeded();
    await expect.poll(() => items().count()).toBe(45);
    expect((await calls()).filter((call) => call[0] === 'list')).toEqual([
      ['list', null],
      ['list', 'ntf_025'],
      ['list', 'ntf_005'],
    ]);
  });

  it('marks read, unread, all read, and archives; the badge and the live region follow', async () => {
    await openInbox();
    await bell().click();
    const first = items().first();
    await first.getByRole('button', { name: 'Mark read' }).click();
    await expect.poll(() => bell().getAttribute('aria-label')).toBe('Notifications, 22 unread');
    expect(await page.locator('tidings-inbox [part~=live]').textContent()).toBe('22 unread notifications');
    await first.getByRole('button', { name: 'Mark unread' }).click();
    await expect.poll(() => bell().getAttribute('aria-label')).toBe('Notifications, 23 unread');

    await first.getByRole('button', { name: 'Archive' }).click();
    await expect.poll(() => page.locator('tidings-inbox [part~=title]').first().textContent()).toBe('Order 43 shipped');
    await expect.poll(() => bell().getAttribute('aria-label')).toBe('Notifications, 22 unread');
    // The focus went to the next item, not to the page.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TIDINGS-INBOX');

    await page.locator('tidings-inbox').getByRole('button', { name: 'Mark all read' }).click();
    await expect.poll(() => bell().getAttribute('aria-label')).toBe('Notifications, 0 unread');
    expect(await page.locator('tidings-inbox [part~=badge]').isVisible()).toBe(false);
    expect(await page.locator('tidings-inbox [part~="unread"]').count()).toBe(0);
    expect(await page.locator('tidings-inbox').getByRole('button', { name: 'Mark all read' }).isDisabled()).toBe(true);
  });

  it('puts a new notification at the top of the open list, and marks it seen', async () => {
    await openInbox();
    await bell().click();
    await expect.poll(() => items().count()).toBe(20);
    await page.evaluate(() =>
      window.__emit({
        type: 'item',
        item: {
          object: 'inbox_item',
          id: 'ntf_new',
          recipient: 'ann',
          title: 'Just now',
          body: null,
          url: null,
          icon: null,
          tag: null,
          data: null,
          created_at: new Date().toISOString(),
          seen_at: null,
          read_at: null,
          archived_at: null,
        },
        version: window.__made(),
      }),
    );
    expect(await page.locator('tidings-inbox [part~=title]').first().textContent()).toBe('Just now');
    await expect.poll(calls).toContainEqual(['mark', 'seen', ['ntf_new']]);
  });

  it('keeps the counts of the highest version it was told', async () => {
    await openInbox();
    const tell = (unread: number, version: number) =>
      page.evaluate(
        ([unread, version]) =>
          window.__emit({ type: 'counts', counts: { object: 'inbox_counts', total: 45, unread, unseen: 0, version } }),
        [unread, version],
      );
    await tell(7, 50);
    await expect.poll(() => bell().getAttribute('aria-label')).toBe('Notifications, 7 unread');
    await tell(9, 49); // older: the element handles an event at once, so the label would say 9 now
    expect(await bell().getAttribute('aria-label')).toBe('Notifications, 7 unread');
    await tell(8, 50);
    await expect.poll(() => bell().getAttribute('aria-label')).toBe('Notifications, 8 unread');
  });

  it('a click on an item marks it read and follows its url', async () => {
    await openInbox();
    await bell().click();
    await items()
      .first()
      .getByRole('button', { name: /Order 44 shipped/ })
      .click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#opened-44');
    expect(await calls()).toContainEqual(['mark', 'read', ['ntf_044']]);
  });

  it('Escape closes the list and returns the focus to the bell; the keyboard reaches every item', async () => {
    await openInbox();
    await bell().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => items().count()).toBe(20);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const focused = () =>
      page.evaluate(() => {
        const inner = document.querySelector('tidings-inbox')?.shadowRoot?.activeElement;
        return inner ? `${inner.getAttribute('part')}: ${inner.textContent?.trim().replace(/\s+/g, ' ')}` : null;
      });
    expect(await focused()).toMatch(/^open: Unread: Order 44 shipped/);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('action toggle-read: Mark read');
    await page.keyboard.press('Escape');
    expect(await panel().isVisible()).toBe(false);
    expect(await bell().getAttribute('aria-expanded')).toBe('false');
    expect(await focused()).toMatch(/^bell/);
  });

  it('says when there is nothing, and when the connection is not open', async () => {
    await openInbox('?items=0', 0);
    await bell().click();
    await expect.poll(() => page.locator('tidings-inbox [part~=empty]').isVisible()).toBe(true);
    expect(await page.locator('tidings-inbox [part~=empty]').textContent()).toBe('No notifications');
    expect(await page.locator('tidings-inbox [part~=offline]').isVisible()).toBe(false);
    await page.evaluate(() => window.__emit({ type: 'status', status: 'reconnecting' }));
    expect(await page.locator('tidings-inbox [part~=offline]').textContent()).toBe('Offline: reconnecting…');
    await page.evaluate(() => window.__emit({ type: 'status', status: 'open' }));
    expect(await page.locator('tidings-inbox [part~=offline]').isVisible()).toBe(false);
  });

  for (const width of [1280, 390]) {
    it(`passes axe, open and closed, and the list fits the screen at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 800 });
      await openInbox();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await bell().click();
      await expect.poll(() => items().count()).toBe(20);
      expect(await seriousAxeViolations(page)).toEqual([]);
      const box = (await panel().boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      expect(box.y + box.height).toBeLessThanOrEqual(800);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await mkdir(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, `inbox-open-${width}.png`) });
    });
  }
});
