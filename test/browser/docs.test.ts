import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertBuilt, type ServeProcess, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchPage } from './harness.js';

/** `tidings serve`'s API reference at /docs, opened in Chromium. */

/** Where browser tests leave what a person may want to look at (git-ignored). */
const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

interface Document {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: object }> }>>;
  components: { schemas: Record<string, unknown> };
}

let workspace: Awaited<ReturnType<typeof tempDir>>;
let server: ServeProcess;
let browser: Browser;

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  server = await startServe(['--db', join(workspace.dir, 'docs.db'), '--port', '0']);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await workspace?.remove();
});

describe('the API reference at /docs', () => {
  it('shows every endpoint and object of the served document, loads nothing from another host, and is screenshotted', async () => {
    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as Document;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const watcher = watchPage(page);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    try {
      const response = await page.goto(`${server.url}/docs`);
      expect(response?.status()).toBe(200);
      const csp = response?.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain('unsafe-inline');

      const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ method, path, operation })),
      );
      expect(operations.length).toBeGreaterThanOrEqual(8);
      for (const { method, path, operation } of operations) {
        const heading = page.locator(`section#${operation.operationId} h3`);
        await heading.waitFor({ state: 'visible', timeout: 5_000 });
        expect(await heading.textContent()).toBe(`${method.toUpperCase()} ${path}`);
        const statuses = await page.locator(`section#${operation.operationId} td.status`).allTextContents();
        expect(statuses).toEqual(Object.keys(operation.responses));
        expect(await page.locator(`nav a[href="#${operation.operationId}"]`).count()).toBe(1);
      }
      for (const name of Object.keys(document.components.schemas)) {
        expect(await page.locator(`section#schema-${name} h3`).textContent()).toBe(name);
      }
      // The stylesheet applied (a CSP refusal would leave the page unstyled): the nav is a column beside the text.
      const navBox = await page.locator('nav').boundingBox();
      expect(navBox?.x).toBe(0);
      expect(navBox?.width).toBeGreaterThan(200);
      expect(navBox?.width).toBeLessThan(400);

      await mkdir(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, 'api-reference.png'), fullPage: false });
      await page.screenshot({ path: join(artifacts, 'api-reference-full.png'), fullPage: true });
      await page.locator('section#createNotification').screenshot({ path: join(artifacts, 'api-reference-send.png') });

      expect(requested.length).toBeGreaterThan(0);
      for (const url of requested) expect(new URL(url).hostname).toBe('127.0.0.1');
      expect(watcher.messages.filter((message) => /Content Security Policy|Refused/i.test(message))).toEqual([]);
      expect(watcher.pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
