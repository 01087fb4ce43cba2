// Peer of the fan-out on plain `node:http`, no framework: it keeps each open stream's
// ServerResponse in a Map by recipient (GET /v1/connect/:recipient) and, on POST
// /v1/notifications, parses the body and writes one event to each open stream of the recipient
// before answering 201. Same event format as bare-sse.js; no auth, no store, no limiter, no
// resume: the least a Node server must hold per stream and do per send.
import http from 'node:http';
import { eventPayload, notificationLike } from './baseline-object.js';

const streams = new Map();
let nextId = 0;
// Several processes of this peer in one run (bench/streams-100k.js) number their ids apart.
const idPrefix = process.env.BARE_ID_PREFIX ?? '';
let nextSeq = 0;
const heartbeatMs = Number(process.env.BARE_HEARTBEAT_MS || 0);

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/v1/connect/')) {
    const recipient = decodeURIComponent(req.url.slice('/v1/connect/'.length));
    let set = streams.get(recipient);
    if (!set) {
      set = new Set();
      streams.set(recipient, set);
    }
    set.add(res);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
    });
    res.write(`retry: 2000\n\nid: b.0\nevent: ready\ndata: {"recipient":"${recipient}"}\n\n`);
    const slot = slots.length > 0 ? slots[nextSlot++ % slots.length] : null;
    slot?.add(res);
    res.on('close', () => {
      set.delete(res);
      slot?.delete(res);
    });
    return;
  }
  if (req.method === 'POST' && req.url === '/v1/notifications') {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      const body = JSON.parse(text);
      const id = `ntf_${idPrefix}${String(++nextId).padStart(26 - idPrefix.length, '0')}`;
      for (const stream of streams.get(body.recipient) ?? []) {
        const seq = ++nextSeq;
        const payload = eventPayload(body, id, seq);
        stream.write(`id: b.${seq}\nevent: notification\ndata: ${JSON.stringify(payload)}\n\n`);
      }
      const answer = JSON.stringify(notificationLike(body, id));
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(answer) });
      res.end(answer);
    });
    return;
  }
  res.writeHead(404).end();
});

// Heartbeats like Tidings' (a comment on every stream each interval), only when asked for: the
// headroom benchmark compares idle CPU with them running on both sides. Like Tidings, the streams
// are spread over the interval (one slot per 100 ms tick): one burst to every stream at once
// would hold the event loop for hundreds of ms and show as send latency.
const tickMs = 100;
const slots =
  heartbeatMs > 0 ? Array.from({ length: Math.max(1, Math.round(heartbeatMs / tickMs)) }, () => new Set()) : [];
let nextSlot = 0;
let tick = 0;
if (heartbeatMs > 0) {
  setInterval(() => {
    tick = (tick + 1) % slots.length;
    for (const stream of slots[tick]) stream.write(': ping\n\n');
  }, tickMs).unref();
}

server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
