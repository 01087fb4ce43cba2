// A push service for bench/web-push.js: takes every POST /push/ID, reads its body, answers 201
// (as a push service that accepted the message), and keeps the count and, per path, when the
// first message arrived (wall-clock ms with sub-millisecond precision, comparable across the
// bench's processes). GET /stats answers both; POST /reset clears them. It decrypts nothing: the
// work a real push service does is the same for Tidings and the baseline.
//
// With PUSH_SINK_TLS_KEY and PUSH_SINK_TLS_CERT (PEM files) it speaks TLS, offering HTTP/2 first
// and HTTP/1.1 beside it, as push services do.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createSecureServer } from 'node:http2';

let count = 0;
let arrivals = new Map();
/** Messages by the HTTP version they came over, `1.1` or `2.0`. */
let versions = {};
const wallNow = () => performance.timeOrigin + performance.now();

const handle = (req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ count, versions, arrivals: Object.fromEntries(arrivals) }));
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    count = 0;
    arrivals = new Map();
    versions = {};
    res.writeHead(204).end();
    return;
  }
  const at = wallNow();
  req.resume();
  req.on('end', () => {
    count++;
    versions[req.httpVersion] = (versions[req.httpVersion] ?? 0) + 1;
    if (!arrivals.has(req.url)) arrivals.set(req.url, at);
    res.writeHead(201, { Location: `${req.url}/message` }).end();
  });
};
const tls = process.env.PUSH_SINK_TLS_KEY && process.env.PUSH_SINK_TLS_CERT;
const server = tls
  ? createSecureServer(
      {
        key: readFileSync(process.env.PUSH_SINK_TLS_KEY),
        cert: readFileSync(process.env.PUSH_SINK_TLS_CERT),
        allowHTTP1: true,
      },
      handle,
    )
  : createServer(handle);
if (!tls) server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on ${tls ? 'https' : 'http'}://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
