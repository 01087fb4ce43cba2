// Baseline of the fan-out: a bare Hono app on @hono/node-server that holds event streams in a
// Map by recipient (GET /v1/connect/:recipient) and, on POST /v1/notifications, parses the body
// and writes one event to each open stream of the recipient before answering 201. No auth, no
// store, no limiter, no resume: the least any server must do for the same fan-out.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { eventPayload, notificationLike } from './baseline-object.js';

const encoder = new TextEncoder();
const streams = new Map();
let nextId = 0;
let nextSeq = 0;

const app = new Hono();
app.get('/v1/connect/:recipient', (c) => {
  const recipient = c.req.param('recipient');
  let controller;
  const body = new ReadableStream({
    start(c) {
      controller = c;
      let set = streams.get(recipient);
      if (!set) {
        set = new Set();
        streams.set(recipient, set);
      }
      set.add(controller);
      controller.enqueue(
        encoder.encode(`retry: 2000\n\nid: b.0\nevent: ready\ndata: {"recipient":"${recipient}"}\n\n`),
      );
    },
    cancel() {
      streams.get(recipient)?.delete(controller);
    },
  });
  return new Response(body, {
    headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform' },
  });
});
app.post('/v1/notifications', async (c) => {
  const body = await c.req.json();
  const id = `ntf_${String(++nextId).padStart(26, '0')}`;
  for (const controller of streams.get(body.recipient) ?? []) {
    const seq = ++nextSeq;
    const payload = eventPayload(body, id, seq);
    controller.enqueue(encoder.encode(`id: b.${seq}\nevent: notification\ndata: ${JSON.stringify(payload)}\n\n`));
  }
  return c.json(notificationLike(body, id), 201);
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (address) => {
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
