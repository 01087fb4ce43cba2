// Orders and their notifications in one Prisma transaction: the app's tables (through Prisma ORM 7
// and its pg driver adapter) and Tidings' (in a schema of their own) share one database, and an
// order, the stock it takes and the notification about it commit together, or none of them does.
// Served by Fastify, with a page that shows each notification arriving.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { PrismaPg } from '@prisma/adapter-pg';
import { createTidings, TidingsError } from '@tidings/core';
import { tidingsFastify } from '@tidings/fastify';
import { createPostgresStore } from '@tidings/store-postgres';
import { prismaTransaction } from '@tidings/store-postgres/prisma';
import Fastify from 'fastify';
import { PrismaClient } from './generated/prisma/client.ts';

const port = Number(process.env.PORT ?? 3004);
const connectionString = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString }) });

// The app's tables, made by SQL at start for the example's sake: `prisma migrate` runs Prisma's
// schema engine, which comes from Prisma's servers rather than the npm registry.
await prisma.$executeRawUnsafe(
  'CREATE TABLE IF NOT EXISTS prisma_example_products (id text PRIMARY KEY, stock integer NOT NULL)',
);
await prisma.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS prisma_example_orders
  (id serial PRIMARY KEY, buyer text NOT NULL, product text NOT NULL, quantity integer NOT NULL)`);
await prisma.product.upsert({ where: { id: 'tea' }, create: { id: 'tea', stock: 5 }, update: {} });

// Tidings' tables in the schema `tidings` of the same database; one app, one project: no key.
const store = await createPostgresStore({ connectionString, schema: 'tidings' });
const tidings = createTidings({ store, project: 'orders-prisma-example' });

const app = Fastify();
// Tidings under /notify; app.close() closes it first, which ends the open event streams.
await app.register(tidingsFastify, { tidings, prefix: '/notify' });

// Your server decides who the signed-in user is; here it is always demo-user.
const USER = 'demo-user';
app.post('/api/token', async (_request, reply) => {
  const { token } = await tidings.createConnectToken({ recipient: USER });
  return reply.header('Cache-Control', 'no-store').send({ token });
});

/** Thrown in the transaction when the stock is short: it rolls the order and its notification back. */
class OutOfStock extends Error {}

// An order: the row, its notification and the stock it takes, in one transaction. The stock is
// taken after the send; when it is short, the transaction rolls back, and the notification goes
// with it: nothing arrives.
app.post<{ Body: { quantity?: number } | null }>('/orders', async (request, reply) => {
  const quantity = Number(request.body?.quantity ?? 1);
  try {
    const placed = await prisma.$transaction(async (tx) => {
      const order = await tx.order.create({ data: { buyer: USER, product: 'tea', quantity } });
      const { notification } = await tidings.notifications.send(
        { recipient: USER, title: `Order #${order.id} confirmed`, body: `${quantity} × tea` },
        { transaction: prismaTransaction(tx), idempotencyKey: `order-${order.id}` },
      );
      const taken = await tx.product.updateMany({
        where: { id: 'tea', stock: { gte: quantity } },
        data: { stock: { decrement: quantity } },
      });
      if (taken.count === 0) throw new OutOfStock();
      return { order: order.id, notification: notification.id };
    });
    return reply.code(201).send(placed);
  } catch (error) {
    if (error instanceof TidingsError) {
      return reply.code(error.status).send({ code: error.code, detail: error.message });
    }
    if (error instanceof OutOfStock) {
      const detail = 'Not enough tea left: the order and its notification were rolled back';
      return reply.code(409).send({ code: 'OUT_OF_STOCK', detail });
    }
    throw error;
  }
});

// The page: the browser SDK shows each notification as it arrives.
const sdk = createRequire(import.meta.url).resolve('@tidings/browser/tidings.global.js');
app.get('/assets/tidings.global.js', async (_request, reply) =>
  reply.type('text/javascript').send(await readFile(sdk)),
);
app.get('/', async (_request, reply) =>
  reply.type('text/html').send(`<!doctype html>
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

await app.listen({ port });
console.log(`listening on http://localhost:${port}`);
console.log("open it in a browser, and order: each order's notification arrives on the page");

async function shutdown() {
  await app.close(); // Tidings first (the plugin's preClose hook), then the server
  await store.close();
  await prisma.$disconnect();
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
