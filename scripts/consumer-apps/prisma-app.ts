// An Express app on PostgreSQL whose send joins a Prisma transaction (Prisma ORM 7, its generated
// client on @prisma/adapter-pg): the app's row and its notification commit together, or neither
// does. One project named by the app, no API key. The same file runs as an ES module and as CommonJS.
import { PrismaPg } from '@prisma/adapter-pg';
import { createTidings } from '@tidings/core';
import { tidingsExpress } from '@tidings/express';
import { createPostgresStore } from '@tidings/store-postgres';
import { prismaTransaction } from '@tidings/store-postgres/prisma';
import express from 'express';
import { PrismaClient } from './generated/prisma/client.js';

const connectionString = process.env.DATABASE_URL ?? 'postgres://localhost/app';
const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString }) });

async function main() {
  const store = await createPostgresStore({ connectionString, schema: 'tidings' });
  const tidings = createTidings({ store, project: 'my-app' });
  const app = express();
  app.use('/notify', tidingsExpress(tidings));
  // The signed-in user's connect token (the app's own session check decides who that is).
  app.post('/token/:user', async (req, res) => {
    const baseUrl = `${req.protocol}://${req.get('host')}/notify`;
    res.json(await tidings.createConnectToken({ recipient: req.params.user, baseUrl }));
  });
  app.post('/hello/:user', async (req, res) => {
    const recipient = req.params.user;
    const { notification } = await prisma.$transaction(async (tx) => {
      await tx.greeting.create({ data: { recipient } });
      return tidings.notifications.send({ recipient, title: 'Hello' }, { transaction: prismaTransaction(tx) });
    });
    res.status(201).json({ id: notification.id });
  });
  const server = app.listen(Number(process.env.PORT ?? 3000));
  process.once('SIGTERM', async () => {
    await tidings.close(); // ends the open streams, which server.close() would wait for
    server.close();
    await Promise.all([store.close(), prisma.$disconnect()]);
  });
}
main();
