// Peer of the fan-out on Express, for the Express adapter: it keeps each open stream's response
// in a Map by recipient (GET /v1/connect/:recipient) and, on POST /v1/notifications (with
// express.json()), writes one event to each open stream of the recipient before answering 201.
// Same event format as bare-sse.js; no auth, no store, no limiter, no resume: what Express
// itself holds per stream and does per send.
import express from 'express';
import { eventPayload, notificationLike } from './baseline-object.js';

const streams = new Map();
let nextId = 0;
let nextSeq = 0;

const app = express();
app.get('/v1/connect/:recipient', (req, res) => {
  const { recipient } = req.params;
  let set = streams.get(recipient);
  if (!set) {
    set = new Set();
    streams.set(recipient, set);
  }
  set.add(res);
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform' });
  res.write(`retry: 2000\n\nid: b.0\nevent: ready\ndata: {"recipient":"${recipient}"}\n\n`);
  res.on('close', () => set.delete(res));
});
app.post('/v1/notifications', express.json(), (req, res) => {
  const body = req.body;
  const id = `ntf_${String(++nextId).padStart(26, '0')}`;
  for (const stream of streams.get(body.recipient) ?? []) {
    const seq = ++nextSeq;
    stream.write(`id: b.${seq}\nevent: notification\ndata: ${JSON.stringify(eventPayload(body, id, seq))}\n\n`);
  }
  res.status(201).json(notificationLike(body, id));
});

const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
