// A webhook receiver for bench/webhooks.js: takes every POST, reads and parses its JSON body,
// answers 204, and keeps the count, the distinct `webhook-id`s, when the first and the last
// message arrived, and for each `notification.attempt.updated` whose attempt is `delivered`
// when it first arrived, by attempt id (wall-clock ms with sub-millisecond precision, comparable
// across the bench's processes). GET /stats answers them; POST /reset clears them. It verifies no
// signature: that work is the same for Tidings and the baseline.
import { createServer } from 'node:http';

const wallNow = () => performance.timeOrigin + performance.now();
let state;
const reset = () => {
  state = { count: 0, ids: new Set(), first: null, last: null, delivered: new Map() };
};
reset();

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        count: state.count,
        distinct: state.ids.size,
        first: state.first,
        last: state.last,
        delivered: Object.fromEntries(state.delivered),
      }),
    );
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    reset();
    res.writeHead(204).end();
    return;
  }
  const at = wallNow();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    state.count++;
    state.ids.add(req.headers['webhook-id']);
    state.first ??= at;
    state.last = at;
    const attempt = body.data?.attempt;
    if (body.type === 'notification.attempt.updated' && attempt?.status === 'delivered') {
      if (!state.delivered.has(attempt.id)) state.delivered.set(attempt.id, at);
    }
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
