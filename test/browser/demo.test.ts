import { join } from 'node:path';
import { assertBuilt, type ServeProcess, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, until, watchPage } from './harness.js';

/** `tidings serve --demo` as `npm start` runs it, opened in Chromium as a new user would. */

interface DemoOutput {
  object: 'demo';
  projectId: string;
  liveKey: string;
  testKey: string;
  url: string;
}

let workspace: Awaited<ReturnType<typeof tempDir>>;
let server: ServeProcess;
let demo: DemoOutput;
let browser: Browser;

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  server = await startServe(['--demo', '--json', '--db', join(workspace.dir, 'demo.db'), '--port', '0']);
  const out = await server.waitForStdout(/^\{"object":"demo".*\}$/m);
  demo = JSON.parse(/^\{"object":"demo".*\}$/m.exec(out)![0]) as DemoOutput;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await workspace?.remove();
});

async function stopped(process: ServeProcess) {
  process.child.kill('SIGTERM');
  return process.exited;
}

describe('the demo page', () => {
  it('connects as demo-user and lists a notification sent with the printed live key', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const watcher = watchPage(page);
    try {
      await page.goto(`${demo.url}/demo`);
      const open = page.locator('#status[data-status="open"]');
      await open.waitFor({ timeout: 15_000 }).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await watcher.describe()}`);
      });
      expect(await page.locator('#transport').getAttribute('data-transport')).toBe('sse');
      expect(await page.locator('#browser-id').textContent()).toMatch(/^brw_/);
      const curl = (await page.locator('#curl').textContent()) ?? '';
      expect(curl).toContain(`${demo.url}/v1/notifications`);
      expect(curl).toContain(`Bearer ${demo.liveKey}`);

      const response = await fetch(`${demo.url}/v1/notifications`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${demo.liveKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient: 'demo-user', title: 'Hello <b>demo</b>', body: 'Shown as text' }),
      });
      expect(response.status).toBe(201);
      const sent = (await response.json()) as { id: string };

      // The title shows as text: markup in a notification is never interpreted.
      const item = page.locator('#list li', { hasText: 'Hello <b>demo</b>' });
      await item.waitFor({ timeout: 15_000 });
      expect(await item.locator('b').count()).toBe(0);
      expect(await page.locator('#count').textContent()).toBe('1 received');

      await item.getByRole('button', { name: 'Mark clicked' }).click();
      const read = await until(
        async () =>
          (await (
            await fetch(`${demo.url}/v1/notifications/${sent.id}`, {
              headers: { Authorization: `Bearer ${demo.testKey}` },
            })
          ).json()) as { status: string; attempts: { status: string; clicked_at: string | null }[] },
        (notification) => notification.attempts[0]?.clicked_at != null && notification.status === 'completed',
        'the delivered and clicked receipts',
      );
      expect(read.attempts[0]!.status).toBe('delivered');
      // No CSP violation, no failed request, no exception.
      expect(watcher.pageErrors).toEqual([]);
      expect(watcher.messages).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('hands its token endpoint a token of demo-user only, and exists only with --demo', async () => {
    const token = await fetch(`${demo.url}/demo/token`);
    expect(token.headers.get('cache-control')).toBe('no-store');
    expect(await token.json()).toMatchObject({ object: 'connect_token', recipient: 'demo-user' });

    const plain = await startServe(['--db', join(workspace.dir, 'plain.db'), '--port', '0']);
    try {
      expect((await fetch(`${plain.url}/demo`)).status).toBe(404);
      expect((await fetch(`${plain.url}/demo/token`)).status).toBe(404);
    } finally {
      expect(await stopped(plain)).toBe(0);
    }
  });
});
