import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { privateDatabase, startApp } from '@tidings/test-support/app-process.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The README's embedding example, exactly as the README shows it: type-checked with
 * `tsc --strict` (`skipLibCheck` off), then run with Node.js's own TypeScript support against a
 * database of its own on the test PostgreSQL. The app's `orders` table is the only thing the test
 * adds; everything else (the page, the token, the send in the order's transaction, the receipts,
 * the shutdown with a stream open) is the example's.
 */
const root = join(import.meta.dirname, '..', '..');
let database: Awaited<ReturnType<typeof privateDatabase>>;
let dir: string;
let file: string;
let app: pg.Pool;

/** The first block of `language` after the README's "## Embedding" heading. */
async function embeddingBlock(language: 'ts' | 'sh'): Promise<string> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Embedding\n'));
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section);
  if (!match) throw new Error(`README.md: no ${language} block under "## Embedding"`);
  return match[1]!;
}
const embeddingExample = () => embeddingBlock('ts');

beforeAll(async () => {
  database = await privateDatabase('readme');
  app = database.pool;
  await app.query(
    "CREATE TABLE orders (id text PRIMARY KEY, buyer_id text NOT NULL, status text NOT NULL DEFAULT 'paid')",
  );
  await app.query("INSERT INTO orders (id, buyer_id) VALUES ('o-1', 'user_7')");
  // Inside the repository, so that the example's imports resolve to the workspace's packages.
  dir = await mkdtemp(join(root, 'test', 'readme', '.embedding-'));
  file = join(dir, 'server.mts');
  await writeFile(file, await embeddingExample());
}, 60_000);

afterAll(async () => {
  await database?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the README's embedding example", () => {
  it('installs every package it imports or resolves, and the types of each', async () => {
    const [install, typesInstall] = (await embeddingBlock('sh')).trim().split('\n');
    const example = await embeddingExample();
    const used = new Set(
      [...example.matchAll(/from '([^']+)'|resolve\('([^']+)'\)/g)]
        .map((match) => (match[1] ?? match[2])!)
        .filter((specifier) => !specifier.startsWith('node:'))
        .map((specifier) =>
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        ),
    );
    expect(used).toContain('@tidings/browser');
    expect(install!.split(' ').slice(2).sort()).toEqual([...used].sort());
    // Express and pg ship no types of their own.
    expect(typesInstall).toBe('npm install --save-dev typescript @types/node @types/express @types/pg');
  });

  it('compiles with tsc --strict and skipLibCheck off', () => {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = ['--strict', '--skipLibCheck', 'false', '--noEmit', '--module', 'nodenext', '--target', 'es2022'];
    const result = spawnSync(process.execPath, [tsc, ...flags, '--types', 'node', file], { encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);

  it('runs as written: the page, a token, the send in the order’s transaction, the receipts, the shutdown', async () => {
    const example = await startApp(file, { DATABASE_URL: database.url });
    const { base, child, exited } = example;
    try {
      const page = await (await fetch(`${base}/`, { headers: { 'x-user': 'user_7' } })).text();
      expect(page).toContain('/assets/tidings.global.js');
      expect((await fetch(`${base}/assets/tidings.global.js`)).status).toBe(200);

      // The token alone, never cached (docs/browsers.md); the page's SDK connects under /notify.
      const minted = await fetch(`${base}/api/tidings-token`, { method: 'POST', headers: { 'x-user': 'user_7' } });
      expect(minted.headers.get('cache-control')).toBe('no-store');
      const answer = (await minted.json()) as { token: string };
      expect(Object.keys(answer)).toEqual(['token']);
      const stream = readEvents(await fetch(`${base}/notify/v1/connect/${answer.token}`));
      await stream.next('ready');

      const shipped = await fetch(`${base}/orders/o-1/ship`, { method: 'POST' });
      expect(shipped.status).toBe(201);
      const { notification } = (await shipped.json()) as { notification: string };
      const event = await stream.next('notification');
      expect(JSON.parse(event.data)).toMatchObject({ notification_id: notification, title: 'Your order has shipped' });
      expect((await app.query("SELECT status FROM orders WHERE id = 'o-1'")).rows[0].status).toBe('shipped');

      const read = await (await fetch(`${base}/orders/o-1/notification/${notification}`)).json();
      expect(read).toMatchObject({
        id: notification,
        attempts: [{ status: expect.stringMatching(/^(accepted|sent)$/) }],
      });

      // The idempotency key of the order: shipping it again answers the same notification.
      const again = await fetch(`${base}/orders/o-1/ship`, { method: 'POST' });
      expect(await again.json()).toEqual({ notification });

      // The dashboard is not used: its tables are not in the app's database.
      const { rows } = await app.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'tidings' ORDER BY table_name",
      );
      const tables = rows.map((row) => row.table_name as string);
      expect(tables).toContain('notifications');
      const dashboardTables = ['audit_events', 'email_codes', 'passkeys', 'recovery_codes', 'sessions'];
      expect(tables.filter((name) => dashboardTables.includes(name))).toEqual([]);

      // SIGTERM with a stream still open: the process ends by itself, the stream with it.
      child.kill('SIGTERM');
      const [code, signal] = await exited;
      expect({ code, signal, output: example.output() }).toMatchObject({ code: 0, signal: null });
      await stream.end();
    } finally {
      example.kill();
    }
  }, 60_000);
});
