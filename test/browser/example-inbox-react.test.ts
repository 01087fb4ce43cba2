import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type AppProcess, startApp } from '@tidings/test-support/app-process.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchPage } from './harness.js';

/**
 * examples/inbox-react in Chromium, as built by `npm run build`: a notification sent through the
 * example's API raises the bell's badge and comes in at the top of the list; marking it read
 * brings the badge back to 0. axe finds nothing at a laptop's and a phone's width, and the page
 * fits the phone's.
 */
const example = join(import.meta.dirname, '..', '..', 'examples', 'inbox-react');
let app: AppProcess;
let browser: Browser;
let dataDir: string;

beforeAll(async () => {
  if (!existsSync(join(example, 'dist', 'index.html')))
    throw new Error('examples/inbox-react is not built: npm run build');
  dataDir = mkdtempSync(join(tmpdir(), 'tidings-inbox-react-'));
  app = await startApp(join(example, 'server.js'), { TIDINGS_DB: join(dataDir, 'inbox.db') });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  app?.kill();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Every axe violation on the page as it stands, whatever its impact. */
async function axeViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map(({ id, impact, nodes }) => `${id} (${impact}): ${nodes.map((node) => node.target).join(', ')}`);
}

/** How far the page reaches past the viewport's right edge, in CSS pixels. */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('the inbox React example’s page', () => {
  it('counts a notification sent, shows it, and counts 0 once it is marked read', async () => {
    // A context of its own: axe runs in every frame of it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const watcher = watchPage(page);
    const badge = page.locator('#unread-count');
    try {
      await page.goto(app.base);
      await badge.filter({ hasText: /^0 unread$/ }).waitFor({ timeout: 15_000 });

      const sent = await fetch(`${app.base}/api/send`, { method: 'POST' });
      expect(sent.status).toBe(201);
      await badge.filter({ hasText: /^1 unread$/ }).waitFor({ timeout: 10_000 });
      const item = page.getByRole('listitem').filter({ hasText: 'Your order #1 shipped' });
      await item.waitFor();

      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        expect(await axeViolations(page), `axe at ${width} px`).toEqual([]);
        expect(await overflow(page), `past the screen at ${width} px`).toBeLessThanOrEqual(0);
      }

      await item.getByRole('button', { name: 'Mark read (Your order #1 shipped)' }).click();
      await badge.filter({ hasText: /^0 unread$/ }).waitFor({ timeout: 10_000 });
      await item.getByRole('button', { name: 'Mark unread (Your order #1 shipped)' }).waitFor();
      expect(watcher.pageErrors).toEqual([]);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await watcher.describe()}\n${app.output()}`);
    } finally {
      await context.close();
    }
  }, 45_000);
});
