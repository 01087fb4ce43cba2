import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { until as untilValue } from '@tidings/core/testing';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core: no browser download, the one CI has. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A script-tag build of the SDK, as a customer would serve it from their own origin. */
const sdkPath = (name: string) => fileURLToPath(new URL(`../../packages/browser/dist/${name}`, import.meta.url));

/** Waits for `predicate` to hold of what `check` resolves with (the one `until`, with a browser's longer default). */
export function until<T>(
  check: () => Promise<T>,
  predicate: (value: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  return untilValue(check, { accept: predicate, what, timeoutMs });
}

/** A status change as the test page records it (`onStatus`), reduced to plain data. */
export interface RecordedStatus {
  status: string;
  browserId: string | null;
  resumed: boolean | null;
  transport: string | null;
  reason: string | null;
  error: string | null;
  /** Pages opened with `share=1`: whether this tab holds the connection. */
  leader: boolean | null;
}

/** A notification as `onNotification` got it. */
export interface ReceivedNotification {
  attempt_id: string;
  notification_id: string;
  title: string;
  body: string | null;
}

declare global {
  /** What the test page exposes for the test to read. */
  interface Window {
    /** Notifications handed to `onNotification` by this document. */
    __received: ReceivedNotification[];
    /** Attempt ids handed to `onNotification` in this tab, across reloads (kept in sessionStorage). */
    __log: string[];
    __statuses: RecordedStatus[];
    __errors: { code: string; message: string; fatal: boolean }[];
    __connection: { browserId(): string | null; delivered(attemptId: string): void; disconnect(): void };
    /** Sends `delivered` for every attempt of `__log` (pages opened with `ack=manual`). */
    __ackAll(): void;
  }
}

/**
 * A customer's page: loads the SDK's script-tag build from its own origin, gets its connect
 * token from its own back end (`/token`, which calls `POST /v1/connect-tokens` with a key, as a
 * customer's server does), and records what the SDK reports on `window` for the test to read.
 * Query: `recipient`, `ack=manual` to turn `autoDelivered` off, and `share=1` to give the SDK the
 * recipient, so that the tabs of one browser share one connection.
 */
function testPageHtml(tidingsUrl: string, inbox: boolean): string {
  const baseUrl = JSON.stringify(tidingsUrl).replaceAll('<', '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Customer app</title><link rel="icon" href="data:,"></head>
<body>${inbox ? '<header><h1>Customer app</h1><tidings-inbox></tidings-inbox></header>' : '<h1>Customer app</h1>'}
<script src="/tidings.global.js"></script>
<script>
  const params = new URLSearchParams(location.search);
  const recipient = params.get('recipient');
  const log = JSON.parse(sessionStorage.getItem('test:log') || '[]');
  window.__received = [];
  window.__log = log;
  window.__statuses = [];
  window.__errors = [];
  window.__connection = Tidings.connect({
    baseUrl: ${baseUrl},
    getToken: async () => {
      const response = await fetch('/token?recipient=' + encodeURIComponent(recipient), { method: 'POST' });
      if (!response.ok) throw new Error('token: ' + response.status + ' ' + (await response.text()));
      return response.text();
    },
    recipient: params.get('share') === '1' ? recipient : undefined,
    autoDelivered: params.get('ack') !== 'manual',
    onNotification: (notification) => {
      window.__received.push(notification);
      log.push(notification.attempt_id);
      sessionStorage.setItem('test:log', JSON.stringify(log));
    },
    onStatus: (status, detail = {}) => {
      window.__statuses.push({
        status,
        browserId: detail.browserId ?? null,
        resumed: detail.resumed ?? null,
        transport: detail.transport ?? null,
        reason: detail.reason ?? null,
        error: detail.error ? detail.error.code : null,
        leader: detail.leader ?? null,
      });
    },
    onError: (error) => window.__errors.push({ code: error.code, message: error.message, fatal: error.fatal }),
  });
  window.__ackAll = () => log.forEach((id) => window.__connection.delivered(id));
  ${inbox ? "document.querySelector('tidings-inbox').connection = window.__connection;" : ''}
</script>
</body></html>
`;
}

/** The customer's web server: another origin than Tidings. */
export interface PageServer {
  url: string;
  /**
   * Holds the next request for the SDK script until `release()`: a reloading page is then gone
   * (its successor is parsing) but not yet connected. `requested` resolves when it arrives.
   */
  holdNextScript(): { requested: Promise<void>; release: () => void };
  close(): Promise<void>;
}

/**
 * Starts the customer's web server on 127.0.0.1, port 0. `tokenKey` is its secret API key. With
 * `inbox`, its page loads `tidings-inbox.global.js` (at the same path) and shows `<tidings-inbox>`.
 */
export async function startPageServer(
  tidingsUrl: string,
  tokenKey: string,
  options: { inbox?: boolean } = {},
): Promise<PageServer> {
  const inbox = options.inbox ?? false;
  const sdk = readFileSync(sdkPath(inbox ? 'tidings-inbox.global.js' : 'tidings.global.js'));
  const html = testPageHtml(tidingsUrl, inbox);
  let hold: { arrived: () => void; released: Promise<void> } | null = null;
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://page.test');
    const noStore = { 'Cache-Control': 'no-store' };
    if (url.pathname === '/') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...noStore }).end(html);
    } else if (url.pathname === '/tidings.global.js') {
      const held = hold;
      hold = null;
      if (held) {
        held.arrived();
        await held.released;
      }
      response.writeHead(200, { 'Content-Type': 'text/javascript', ...noStore }).end(sdk);
    } else if (url.pathname === '/token' && request.method === 'POST') {
      // The customer's back end: it knows who is signed in (here: the query says) and holds the key.
      const minted = await fetch(`${tidingsUrl}/v1/connect-tokens`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokenKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient: url.searchParams.get('recipient') }),
      }).catch((error: unknown) => new Response(String(error), { status: 599 }));
      const text = await minted.text();
      if (minted.status !== 201) response.writeHead(502, noStore).end(text);
      else response.writeHead(200, { 'Content-Type': 'text/plain', ...noStore }).end(JSON.parse(text).token);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    holdNextScript() {
      let arrived!: () => void;
      let release!: () => void;
      const requested = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      hold = { arrived, released: new Promise<void>((resolve) => (release = resolve)) };
      return { requested, release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Records a page's console and uncaught errors, so that a failing wait can say what the page saw. */
export function watchPage(page: Page): { messages: string[]; pageErrors: string[]; describe: () => Promise<string> } {
  const messages: string[] = [];
  const pageErrors: string[] = [];
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => pageErrors.push(String(error.stack ?? error)));
  return {
    messages,
    pageErrors,
    async describe() {
      const state = await page
        .evaluate(() => ({ statuses: window.__statuses, errors: window.__errors, log: window.__log }))
        .catch((error: unknown) => `(page state unreadable: ${error})`);
      return [
        `page state: ${JSON.stringify(state)}`,
        `console:\n  ${messages.join('\n  ') || '(none)'}`,
        `page errors:\n  ${pageErrors.join('\n  ') || '(none)'}`,
      ].join('\n');
    },
  };
}
