// A push service for bench/web-push.js: takes every POST /push/ID, reads its body, answers 201
// (as a push service that accepted the message), and keeps the count and, per path, when the
// first message arrived (wall-clock ms with sub-millisecond precision, comparable across the
// bench's processes). GET /stats answers both; POST /reset clears them. It decrypts nothing: the
// work a real push service does is the same for Tidings and the baseline.
import { createServer } from 'node:http';

let count = 0;
let arrivals = new Map();
const wallNow = () => performance.timeOrigin + performance.now();

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ count, arrivals: Object.fromEntries(arrivals) }));
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    count = 0;
    arrivals = new Map();
    res.writeHead(204).end();
    return;
  }
  const at = wallNow();
  req.resume();
  req.on('end', () => {
    count++;
    if (!arrivals.has(req.url)) arrivals.set(req.url, at);
    res.writeHead(201, { Location: `${req.url}/message` }).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
