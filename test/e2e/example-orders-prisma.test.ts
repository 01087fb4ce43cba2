import { execFile, spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { quietPeriod } from '@tidings/core/testing';
import { type AppProcess, privateDatabase, startApp } from '@tidings/test-support/app-process.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * examples/orders-prisma as its README runs it, on a database of the test's own: its Prisma client
 * generated with nothing but the npm registry (docs/transactions.md), compiled strict, then an
 * order and its notification in one Prisma transaction, delivered to the page's stream on commit;
 * an order whose stock is short after the send rolls back with its notification, which never
 * arrives.
 */
const root = join(import.meta.dirname, '..', '..');
const example = join(root, 'examples', 'orders-prisma');
const server = join(example, 'server.ts');
const execFileAsync = promisify(execFile);
let database: Awaited<ReturnType<typeof privateDatabase>>;
let app: AppProcess;

beforeAll(async () => {
  await execFileAsync(process.execPath, [join(root, 'node_modules', 'prisma', 'build', 'index.js'), 'generate'], {
    cwd: example,
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
      PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING: '1',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
    },
  });
  database = await privateDatabase('orders_prisma_example');
  app = await startApp(server, { DATABASE_URL: database.url });
}, 60_000);

afterAll(async () => {
  app?.kill();
  await database?.drop();
  await rm(join(example, 'generated'), { recursive: true, force: true });
});

const count = async (text: string) => (await database.pool.query(text)).rows[0].n as number;

describe('examples/orders-prisma', () => {
  it('compiles with tsc --strict and skipLibCheck off, its generated client included', () => {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = ['--noEmit', '--strict', '--skipLibCheck', 'false', '--allowImportingTsExtensions'];
    const result = spawnSync(
      process.execPath,
      [tsc, ...flags, '--module', 'nodenext', '--target', 'es2022', '--types', 'node', server],
      { encoding: 'utf8' },
    );
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);

  it('delivers an order’s notification on commit, and none for an order rolled back after the send', async () => {
    const { base } = app;
    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain('<script src="/assets/tidings.global.js"></script>');
    expect((await fetch(`${base}/assets/tidings.global.js`)).headers.get('content-type')).toContain('javascript');

    const minted = await fetch(`${base}/api/token`, { method: 'POST' });
    expect(minted.headers.get('cache-control')).toBe('no-store');
    const { token } = (await minted.json()) as { token: string };
    const stream = readEvents(await fetch(`${base}/notify/v1/connect/${token}`));
    await stream.next('ready');

    const placed = await fetch(`${base}/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ quantity: 2 }),
    });
    expect(placed.status).toBe(201);
    const { order, notification } = (await placed.json()) as { order: number; notification: string };
    const event = JSON.parse((await stream.next('notification')).data);
    expect(event).toMatchObject({ notification_id: notification, title: `Order #${order} confirmed`, body: '2 × tea' });

    // 3 teas are left: an order of 10 finds the stock short after its send, and takes it back.
    const refused = await fetch(`${base}/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ quantity: 10 }),
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'OUT_OF_STOCK' });
    await quietPeriod(300, 'the notification of a rolled-back order');
    expect(stream.events.filter((e) => e.event === 'notification')).toHaveLength(1);
    expect(await count('SELECT count(*)::int AS n FROM prisma_example_orders')).toBe(1);
    expect(await count('SELECT count(*)::int AS n FROM tidings.notifications')).toBe(1);
    expect(await count("SELECT stock AS n FROM prisma_example_products WHERE id = 'tea'")).toBe(3);

    // SIGTERM with the stream open: Fastify closes Tidings first, the stream ends, the process exits.
    app.child.kill('SIGTERM');
    const [code] = await app.exited;
    expect({ code, output: app.output() }).toMatchObject({ code: 0 });
    await stream.end();
  }, 30_000);
});
