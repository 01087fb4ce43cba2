// @ts-check: test/e2e/example-orders-postgres.test.ts compiles this file as TypeScript would (strict).
// Orders and their notifications in one PostgreSQL transaction, with Drizzle: the app's own
// tables and Tidings' (in a schema of their own) share one database, and an order, the stock it
// takes and the notification about it commit together, or none of them does. A page shows the
// notification arriving.
import { createRequire } from 'node:module';
import { serve } from '@hono/node-server';
import { createTidings, TidingsError } from '@tidings/core';
import { tidingsHono } from '@tidings/hono';
import { createPostgresStore } from '@tidings/store-postgres';
import { drizzleTransaction } from '@tidings/store-postgres/drizzle';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { Hono } from 'hono';
import pg from 'pg';

const port = Number(process.env.PORT ?? 3003);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });

// The app's tables: a product whose stock may not go below 0, and its orders.
const products = pgTable('example_products', {
  id: text('id').primaryKey(),
  stock: integer('stock').notNull(),
});
const orders = pgTable('example_orders', {
  id: serial('id').primaryKey(),
  buyer: text('buyer').notNull(),
  product: text('product').notNull(),
  quantity: integer('quantity').notNull(),
});
const db = drizzle(pool);
await db.execute(
  sql`CREATE TABLE IF NOT EXISTS example_products (id text PRIMARY KEY, stock integer NOT NULL CHECK (stock >= 0))`,
);
await db.execute(sql`CREATE TABLE IF NOT EXISTS example_orders
  (id serial PRIMARY KEY, buyer text NOT NULL, product text NOT NULL, quantity integer NOT NULL)`);
await db.insert(products).values({ id: 'tea', stock: 5 }).onConflictDoNothing();

// Tidings' tables in the schema `tidings` of the same database; one app, one project: no key.
const store = await createPostgresStore({ pool, schema: 'tidings' });
const tidings = createTidings({ store, project: 'orders-example' });

const app = new Hono();
app.route('/notify', tidingsHono(tidings));

// Your server decides who the signed-in user is; here it is always demo-user.
const USER = 'demo-user';
app.post('/api/token', async (c) =>
  c.json(await tidings.createConnectToken({ recipient: USER, baseUrl: `${new URL(c.req.url).origin}/notify` })),
);

// An order: the row, the stock it takes, and its notification, in one transaction. The stock
// is taken after the send; when it would go below 0, the CHECK fails, the transaction rolls
// back, and the notification goes with it: nothing arrives.
app.post('/orders', async (c) => {
  const { quantity = 1 } = await c.req.json().catch(() => ({}));
  try {
    const placed = await db.transaction(async (tx) => {
      const [order] = await tx.insert(orders).values({ buyer: USER, product: 'tea', quantity }).returning();
      if (!order) throw new Error('the order was not inserted');
      const { notification } = await tidings.notifications.send(
        { recipient: USER, title: `Order #${order.id} confirmed`, body: `${quantity} × tea` },
        { transaction: drizzleTransaction(tx), idempotencyKey: `order-${order.id}` },
      );
      await tx
        .update(products)
        .set({ stock: sql`${products.stock} - ${quantity}` })
        .where(eq(products.id, 'tea'));
      return { order: order.id, notification: notification.id };
    });
    return c.json(placed, 201);
  } catch (error) {
    if (error instanceof TidingsError) return c.json({ code: error.code, detail: error.message }, error.status);
    if (isCheckViolation(error)) {
      return c.json(
        { code: 'OUT_OF_STOCK', detail: 'Not enough tea left: the order and its notification were rolled back' },
        409,
      );
    }
    throw error;
  }
});

/** PostgreSQL's check_violation (the stock's CHECK), as pg throws it or Drizzle wraps it. */
function isCheckViolation(/** @type {unknown} */ error) {
  const cause = error instanceof Error ? error.cause : undefined;
  return [error, cause].some((e) => e instanceof pg.DatabaseError && e.code === '23514');
}

// The page: the browser SDK shows each notification as it arrives.
const sdk = createRequire(import.meta.url).resolve('@tidings/browser/tidings.global.js');
app.get('/assets/tidings.global.js', async (c) => {
  const { readFile } = await import('node:fs/promises');
  return c.body(await readFile(sdk), 200, { 'Content-Type': 'text/javascript' });
});
app.get('/', (c) =>
  c.html(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Orders</title></head>
<body>
<main>
  <h1>Orders</h1>
  <p><button id="one" type="button">Order 1 tea</button> <button id="many" type="button">Order 10 teas</button></p>
  <p>Connection: <span id="connection">connecting</span></p>
  <p id="status" role="status"></p>
  <h2>Notifications</h2>
  <ul id="notifications"></ul>
</main>
<script src="/assets/tidings.global.js"></script>
<script>
  const list = document.getElementById('notifications');
  const status = document.getElementById('status');
  const tidings = Tidings.connect({
    baseUrl: location.origin + '/notify',
    recipient: ${JSON.stringify(USER)},
    getToken: async () => (await (await fetch('/api/token', { method: 'POST' })).json()).token,
    onStatus: (state) => { document.getElementById('connection').textContent = state; },
    onNotification: (n) => {
      const item = document.createElement('li');
      item.textContent = n.title + (n.body ? ': ' + n.body : '');
      list.append(item);
      tidings.displayed(n.attempt_id);
    },
  });
  async function order(quantity) {
    const answer = await fetch('/orders', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ quantity }) });
    const body = await answer.json();
    status.textContent = answer.ok ? 'Order #' + body.order + ' placed' : body.detail;
  }
  document.getElementById('one').onclick = () => order(1);
  document.getElementById('many').onclick = () => order(10);
</script>
</body>
</html>`),
);

const server = serve({ fetch: app.fetch, port }, (info) => {
  console.log(`listening on http://localhost:${info.port}`);
  console.log("open it in a browser, and order: each order's notification arrives on the page");
});

async function shutdown() {
  await tidings.close(); // ends the open event streams, which server.close() would wait for
  server.close();
  await store.close();
  await pool.end();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
