import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { quietPeriod } from '@tidings/core/testing';
import { type AppProcess, privateDatabase, startApp } from '@tidings/test-support/app-process.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * examples/orders-postgres as `npm start -w examples/orders-postgres` runs it, on a database of
 * the test's own: an order and its notification in one Drizzle transaction, delivered to the
 * page's stream on commit; an order that the stock's CHECK refuses after the send rolls back
 * with its notification, which never arrives.
 */
const root = join(import.meta.dirname, '..', '..');
const server = join(root, 'examples', 'orders-postgres', 'server.js');
let database: Awaited<ReturnType<typeof privateDatabase>>;
let example: AppProcess;

beforeAll(async () => {
  database = await privateDatabase('orders_example');
  example = await startApp(server, { DATABASE_URL: database.url });
}, 60_000);

afterAll(async () => {
  example?.kill();
  await database?.drop();
});

const count = async (text: string) => (await database.pool.query(text)).rows[0].n as number;

describe('examples/orders-postgres', () => {
  it('compiles as TypeScript checks JavaScript, strict: TidingsError.status is a status Hono’s c.json takes', () => {
    // skipLibCheck stays on: drizzle-orm's own declaration files do not compile without it (docs/transactions.md).
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = ['--allowJs', '--checkJs', '--strict', '--noEmit', '--skipLibCheck', '--module', 'nodenext'];
    const result = spawnSync(process.execPath, [tsc, ...flags, '--target', 'es2022', '--types', 'node', server], {
      encoding: 'utf8',
    });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);

  it('delivers an order’s notification on commit, and none for an order rolled back after the send', async () => {
    const { base } = example;
    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain('<script src="/assets/tidings.global.js"></script>');
    expect((await fetch(`${base}/assets/tidings.global.js`)).headers.get('content-type')).toContain('javascript');

    const { connect_url } = (await (await fetch(`${base}/api/token`, { method: 'POST' })).json()) as {
      connect_url: string;
    };
    expect(connect_url.startsWith(`${base}/notify/v1/connect/`)).toBe(true);
    const stream = readEvents(await fetch(connect_url));
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

    // 3 teas are left: an order of 10 fails the stock's CHECK after its send, and takes it back.
    const refused = await fetch(`${base}/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ quantity: 10 }),
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'OUT_OF_STOCK' });
    await quietPeriod(300, 'the notification of a rolled-back order');
    expect(stream.events.filter((e) => e.event === 'notification')).toHaveLength(1);
    expect(await count('SELECT count(*)::int AS n FROM example_orders')).toBe(1);
    expect(await count('SELECT count(*)::int AS n FROM tidings.notifications')).toBe(1);
    expect(await count("SELECT stock AS n FROM example_products WHERE id = 'tea'")).toBe(3);

    example.child.kill('SIGTERM');
    const [code] = await example.exited;
    expect({ code, output: example.output() }).toMatchObject({ code: 0 });
  }, 30_000);
});
