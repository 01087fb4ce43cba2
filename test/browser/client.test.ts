import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TidingsClient } from '../../packages/client/src/client.js';
import { connectBrowser, startTidingsServer, type TidingsServer } from '../../packages/client/test/tidings-server.js';
import { launchChromium } from './harness.js';

/** The server SDK's built module, loaded by a page as a careless customer might. */
const clientModule = fileURLToPath(new URL('../../packages/client/dist/index.js', import.meta.url));

let server: TidingsServer;
let pages: Server;
let pageUrl: string;
let browser: Browser;

beforeAll(async () => {
  server = await startTidingsServer();
  // A page on another origin than Tidings, serving the client's ESM build.
  pages = createServer((request, response) => {
    if (request.url === '/client.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(readFileSync(clientModule));
      return;
    }
    response
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end(
        '<!doctype html><title>Shop</title><link rel="icon" href="data:,">' +
          '<script type="module">import { TidingsClient } from "/client.js"; window.TidingsClient = TidingsClient;</script>',
      );
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pages?.close(resolve));
  await server?.stop();
});

describe('@tidings/client in a real Chromium page', () => {
  it('refuses a live key at construction, and sends with a test key across origins', async () => {
    await connectBrowser(new TidingsClient({ apiKey: server.liveKey, baseUrl: server.url }), 'alice');
    const page = await browser.newPage();
    await page.goto(pageUrl);
    await page.waitForFunction(() => 'TidingsClient' in window);
    const outcome = await page.evaluate(
      async ({ baseUrl, liveKey, testKey }) => {
        const { TidingsClient } = window as unknown as {
          TidingsClient: typeof import('@tidings/client').TidingsClient;
        };
        let refused = '';
        try {
          new TidingsClient({ apiKey: liveKey, baseUrl });
        } catch (error) {
          refused = (error as Error).message;
        }
        const client = new TidingsClient({ apiKey: testKey, baseUrl });
        const sent = await client.notifications.send({ recipient: 'alice', title: 'From a page' });
        const missing = await client.notifications
          .retrieve('ntf_0000000000aaaaaaaaaaaaaaaa')
          .catch((error: Error) => error);
        return { refused, mode: sent.mode, status: sent.status, missing: (missing as { code?: string }).code };
      },
      { baseUrl: server.url, liveKey: server.liveKey, testKey: server.testKey },
    );
    expect(outcome.refused).toMatch(/live API key must never reach a web page/);
    // The send passed the CORS preflight with the client's headers, and the problem was readable.
    expect(outcome).toMatchObject({ mode: 'test', status: 'completed', missing: 'NOT_FOUND' });
    await page.close();
  });
});
