import { join } from 'node:path';
import { type AppProcess, privateDatabase, startApp } from '@tidings/test-support/app-process.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchPage } from './harness.js';

/**
 * examples/orders-postgres's page in Chromium: an order placed with its button shows its
 * notification on the page; an order rolled back after its send (out of stock) shows why, and
 * no notification.
 */
const server = join(import.meta.dirname, '..', '..', 'examples', 'orders-postgres', 'server.js');
let database: Awaited<ReturnType<typeof privateDatabase>>;
let example: AppProcess;
let browser: Browser;

beforeAll(async () => {
  database = await privateDatabase('orders_page');
  example = await startApp(server, { DATABASE_URL: database.url });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  example?.kill();
  await database?.drop();
});

describe('the orders example’s page', () => {
  it('shows the notification of an order as it arrives, and none for an order rolled back', async () => {
    const page = await browser.newPage();
    const watcher = watchPage(page);
    try {
      await page.goto(example.base);
      await page.locator('#connection', { hasText: 'open' }).waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: 'Order 1 tea' }).click();
      await page.locator('#notifications li', { hasText: 'confirmed' }).waitFor({ timeout: 5_000 });
      expect(await page.locator('#notifications li').allTextContents()).toEqual(['Order #1 confirmed: 1 × tea']);

      await page.getByRole('button', { name: 'Order 10 teas' }).click();
      await page.locator('#status', { hasText: 'Not enough tea' }).waitFor({ timeout: 5_000 });
      await page.waitForTimeout(500);
      expect(await page.locator('#notifications li').count()).toBe(1);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await watcher.describe()}`);
    } finally {
      await page.close();
    }
  }, 45_000);
});
