import { constants, createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import { testCertificate } from '@tidings/test-support/tls-certificate.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundSender, type OutboundLookup } from './outbound.js';

let key = '';
let cert = '';
beforeAll(() => {
  ({ key, cert } = testCertificate());
});

const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});

/** Every name resolves to 127.0.0.1; `asked` lists the names resolved. */
function loopbackResolver() {
  const asked: string[] = [];
  const lookup: OutboundLookup = async (hostname) => {
    asked.push(hostname);
    return [{ address: '127.0.0.1', family: 4 }];
  };
  return { lookup, asked };
}

interface SeenOverHttp2 {
  httpVersion: string;
  method: string;
  path: string;
  authority: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An HTTP/2 server that also speaks HTTP/1.1; `sessions` counts its HTTP/2 connections. */
async function serveHttp2(handle: (req: Http2ServerRequest, res: Http2ServerResponse) => void) {
  const seen: SeenOverHttp2[] = [];
  const server = createSecureServer({ key, cert, allowHTTP1: true }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({
        httpVersion: req.httpVersion,
        method: req.method,
        path: req.url,
        authority: req.authority,
        headers: req.headers,
        body,
      });
      handle(req, res);
    });
  });
  let sessions = 0;
  server.on('session', () => sessions++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  closers.push(() => server.close());
  return { server, port, seen, sessions: () => sessions };
}

describe('outbound sender over HTTP/2', () => {
  it('sends every request to an origin that offers HTTP/2 over one connection, several at once', async () => {
    const { port, seen, sessions } = await serveHttp2((req, res) => {
      res.writeHead(201, { 'x-seen': req.url, 'retry-after': '7' }).end(`created ${req.url}`);
    });
    const { lookup, asked } = loopbackResolver();
    const sender = createOutboundSender({ allowPrivateAddresses: true, lookup, ca: cert, http2: true });
    closers.push(() => sender.close());

    const send = (i: number) =>
      sender.send({
        url: `https://push.test:${port}/push/${i}?q=1`,
        headers: { TTL: '60', 'Content-Type': 'application/octet-stream', Host: 'evil.test', Connection: 'close' },
        body: `payload ${i}`,
      });
    const results = await Promise.all([0, 1, 2, 3].map(send));
    results.push(await send(4));
    results.forEach((result, i) => {
      expect(result).toMatchObject({
        kind: 'answered',
        status: 201,
        body: `created /push/${i}?q=1`,
        headers: { 'x-seen': `/push/${i}?q=1` },
        retryAfterMs: 7000,
      });
    });
    expect(sessions()).toBe(1);
    expect(asked).toEqual(['push.test']);
    expect(seen).toHaveLength(5);
    for (const request of seen) {
      expect(request).toMatchObject({ httpVersion: '2.0', method: 'POST', authority: `push.test:${port}` });
      expect(request.headers).toMatchObject({
        ttl: '60',
        'content-type': 'application/octet-stream',
        'user-agent': 'Tidings',
        'content-length': String(request.body.length),
      });
      // The caller's Host and Connection are not sent: the authority is the URL's own.
      expect(request.headers.host).toBeUndefined();
      expect(request.headers.connection).toBeUndefined();
    }
    expect(seen.map((request) => request.body).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `payload ${i}`));
  });

  it('sends over HTTP/1.1, kept alive, to an origin that chose it in the handshake, and remembers it', async () => {
    const versions: string[] = [];
    const server = createHttpsServer({ key, cert }, (req, res) => {
      versions.push(req.httpVersion);
      req.resume();
      req.on('end', () => res.end('over 1.1'));
    });
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => server.close());
    const port = (server.address() as { port: number }).port;
    const { lookup } = loopbackResolver();
    const sender = createOutboundSender({ allowPrivateAddresses: true, lookup, ca: cert, http2: true });
    closers.push(() => sender.close());

    for (let i = 0; i < 3; i++) {
      expect(await sender.send({ url: `https://h1.test:${port}/${i}`, body: 'x' })).toMatchObject({
        kind: 'answered',
        status: 200,
        body: 'over 1.1',
      });
    }
    expect(versions).toEqual(['1.1', '1.1', '1.1']);
    // The handshake that found HTTP/1.1, then one kept-alive connection for all three.
    expect(connections).toBe(2);
  });

  it('speaks HTTP/1.1 to an HTTP/2 origin unless asked, trusting `ca` there too', async () => {
    const { port, seen } = await serveHttp2((_req, res) => res.end('ok'));
    const { lookup } = loopbackResolver();
    const sender = createOutboundSender({ allowPrivateAddresses: true, lookup, ca: cert });
    closers.push(() => sender.close());
    expect(await sender.send({ url: `https://push.test:${port}/` })).toMatchObject({ status: 200, body: 'ok' });
    expect(seen[0]!.httpVersion).toBe('1.1');

    // Without `ca`, the test's certificate is not trusted.
    const untrusting = createOutboundSender({ allowPrivateAddresses: true, lookup, http2: true });
    expect(await untrusting.send({ url: `https://push.test:${port}/` })).toMatchObject({
      kind: 'failed',
      reason: 'network',
    });
    untrusting.close();
  });

  it('refuses an origin whose name resolves to a private address before connecting', async () => {
    const lookup: OutboundLookup = async () => [{ address: '10.1.2.3', family: 4 }];
    const sender = createOutboundSender({ lookup, http2: true });
    expect(await sender.send({ url: 'https://push.example/' })).toEqual({
      kind: 'refused',
      reason: 'push.example resolves to 10.1.2.3, a private address',
    });
    sender.close();
  });

  it('cuts a long body at maxResponseBytes and times out a stalled answer, the connection carrying on', async () => {
    const { port, sessions } = await serveHttp2((req, res) => {
      if (req.url === '/big') res.end('y'.repeat(100_000));
      else if (req.url === '/stall') res.writeHead(200).write('first part');
      else res.end('small');
    });
    const { lookup } = loopbackResolver();
    const sender = createOutboundSender({
      allowPrivateAddresses: true,
      lookup,
      ca: cert,
      http2: true,
      maxResponseBytes: 16,
      timeoutMs: 300,
    });
    closers.push(() => sender.close());
    expect(await sender.send({ url: `https://push.test:${port}/big` })).toMatchObject({
      kind: 'answered',
      body: 'y'.repeat(16),
    });
    const stalled = await sender.send({ url: `https://push.test:${port}/stall` });
    expect(stalled).toMatchObject({ kind: 'failed', reason: 'timeout' });
    expect(await sender.send({ url: `https://push.test:${port}/small` })).toMatchObject({ body: 'small' });
    expect(sessions()).toBe(1);
  });

  it('opens a new connection after the server ends the last one', async () => {
    const { port, sessions } = await serveHttp2((req, res) => {
      // The server goes away after its first answer on each connection.
      const session = req.stream.session;
      res.end('answered', () => session?.close());
    });
    const { lookup, asked } = loopbackResolver();
    const sender = createOutboundSender({ allowPrivateAddresses: true, lookup, ca: cert, http2: true });
    closers.push(() => sender.close());
    expect(await sender.send({ url: `https://push.test:${port}/1` })).toMatchObject({ body: 'answered' });
    // Let the GOAWAY arrive.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await sender.send({ url: `https://push.test:${port}/2` })).toMatchObject({ body: 'answered' });
    expect(sessions()).toBe(2);
    // A new connection resolves, and so checks, its address again.
    expect(asked).toEqual(['push.test', 'push.test']);
  });

  it('sends a request the service refused before processing it once more, and not a third time', async () => {
    let refusals = 1;
    const { port, seen } = await serveHttp2((req, res) => {
      if (refusals > 0 || req.url === '/always') {
        refusals--;
        req.stream.close(constants.NGHTTP2_REFUSED_STREAM);
      } else {
        res.end('second time');
      }
    });
    const { lookup } = loopbackResolver();
    const sender = createOutboundSender({ allowPrivateAddresses: true, lookup, ca: cert, http2: true });
    closers.push(() => sender.close());
    expect(await sender.send({ url: `https://push.test:${port}/once` })).toMatchObject({
      kind: 'answered',
      body: 'second time',
    });
    expect(seen.map((request) => request.path)).toEqual(['/once', '/once']);
    expect(await sender.send({ url: `https://push.test:${port}/always` })).toMatchObject({
      kind: 'failed',
      reason: 'network',
    });
    expect(seen.map((request) => request.path)).toEqual(['/once', '/once', '/always', '/always']);
  });

  it('refuses a header HTTP/2 cannot carry without quoting its value', async () => {
    const { port, seen } = await serveHttp2((_req, res) => res.end());
    const { lookup } = loopbackResolver();
    const sender = createOutboundSender({ allowPrivateAddresses: true, lookup, ca: cert, http2: true });
    closers.push(() => sender.close());
    const result = await sender.send({
      url: `https://push.test:${port}/`,
      headers: { authorization: 'secret\nvalue' },
    });
    expect(result).toEqual({ kind: 'refused', reason: 'a request header has an invalid name or value' });
    expect(seen).toEqual([]);
  });
});
