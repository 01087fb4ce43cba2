import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createTidings, silentLogger, type Tidings } from '@tidings/core';
import { tidingsHono } from '@tidings/hono';
import { createSqliteStore } from '@tidings/store-sqlite';
import { build } from 'esbuild';
import { Hono } from 'hono';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchPage } from './harness.js';

/**
 * The React snippets of docs/inbox.md and packages/react/README.md, run as they are written: the
 * `tsx` blocks of each file make one module (their imports merged), bundled with the installed
 * packages and loaded in Chromium against Tidings embedded in this process. Only the server's
 * address takes the place of `https://tidings.example.com`, and the page defines `currentUser`,
 * which the snippets take from the app. The bell counts a notification sent, the list shows it,
 * and "Mark all read" brings the count back to 0.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const RECIPIENT = 'user_42';

let tidings: Tidings;
let tidingsServer: Server;
let tidingsUrl: string;
let liveKey: string;
let browser: Browser;

/** The `tsx` blocks of a Markdown file, as one module: the imports merged, then the code of every block. */
function snippetModule(markdown: string): string {
  const blocks = [...markdown.matchAll(/```tsx\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const imports = new Map<string, Set<string>>();
  const code: string[] = [];
  for (const block of blocks) {
    const body = block.replace(/^import \{([^}]*)\} from '([^']+)';\n/gm, (_line, names: string, from: string) => {
      const held = imports.get(from) ?? new Set<string>();
      for (const name of names.split(',')) if (name.trim()) held.add(name.trim());
      imports.set(from, held);
      return '';
    });
    code.push(body);
  }
  const importLines = [...imports].map(([from, names]) => `import { ${[...names].join(', ')} } from '${from}';`);
  return [...importLines, ...code].join('\n');
}

/** The page's script: the snippets of `file`, bundled for the browser. */
async function bundle(file: string): Promise<string> {
  const source = snippetModule(readFileSync(`${root}${file}`, 'utf8')).replaceAll(
    'https://tidings.example.com',
    tidingsUrl,
  );
  const result = await build({
    stdin: { contents: source, loader: 'tsx', resolveDir: root, sourcefile: file },
    bundle: true,
    write: false,
    format: 'iife',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"development"' },
    banner: { js: `var currentUser = { id: ${JSON.stringify(RECIPIENT)} };` },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** A page of the app's own origin: the bundle, and its token endpoint, as the snippets call it. */
async function startAppServer(script: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    if (request.url === '/app.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    } else if (request.url === '/api/tidings-token' && request.method === 'POST') {
      void fetch(`${tidingsUrl}/v1/connect-tokens`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient: RECIPIENT }),
      })
        .then((answer) => answer.json() as Promise<{ token: string }>)
        .then(({ token }) => response.writeHead(200, { 'Content-Type': 'text/plain' }).end(token));
    } else {
      const html = '<!doctype html><title>Inbox</title><div id="root"></div><script src="/app.js"></script>';
      response.writeHead(200, { 'Content-Type': 'text/html' }).end(html);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  tidings = createTidings({ store: createSqliteStore({ path: ':memory:' }), logger: silentLogger, sweepIntervalMs: 0 });
  const account = await tidings.admin.createAccount({ email: 'a@example.com', verified: true });
  const project = await tidings.admin.createProject({ accountId: account.id, name: 'Shop' });
  liveKey = (await tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key!;
  const app = new Hono().route('/', tidingsHono(tidings));
  const port = await new Promise<number>((resolve) => {
    tidingsServer = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server;
  });
  tidingsUrl = `http://127.0.0.1:${port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => tidingsServer?.close(resolve));
  await tidings?.close();
});

async function send(title: string): Promise<void> {
  const response = await fetch(`${tidingsUrl}/v1/notifications`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: RECIPIENT, title }),
  });
  expect(response.status).toBe(201);
}

describe('the React snippets of the docs, run as one app each', () => {
  for (const file of ['docs/inbox.md', 'packages/react/README.md']) {
    it(`${file}: the bell counts a notification, the list shows it, and mark all read clears the count`, async () => {
      const app = await startAppServer(await bundle(file));
      const context = await browser.newContext();
      const page = await context.newPage();
      const watcher = watchPage(page);
      try {
        await page.goto(app.url);
        const count = page.getByText(/^\d+ unread$/);
        await count.filter({ hasText: /^0 unread$/ }).waitFor({ timeout: 15_000 });
        const title = `Order shipped (${file})`;
        await send(title);
        await count.filter({ hasText: /^1 unread$/ }).waitFor({ timeout: 10_000 });
        // The README's list opens with the bell; the guide's is always there.
        if (file.includes('README')) await page.getByRole('button', { name: /Notifications/ }).click();
        await page.getByText(title).waitFor({ timeout: 10_000 });
        await page.getByRole('button', { name: 'Mark all read' }).click();
        await count.filter({ hasText: /^0 unread$/ }).waitFor({ timeout: 10_000 });
        expect(watcher.pageErrors).toEqual([]);
      } catch (error) {
        throw new Error(`${String(error)}\n${await watcher.describe()}`);
      } finally {
        await context.close();
        await app.close();
      }
    });
  }
});
