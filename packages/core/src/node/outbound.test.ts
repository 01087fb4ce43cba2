import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listening } from '@tidings/test-support/node-servers.js';
import { describe, expect, it } from 'vitest';
import { createOutboundSender, type OutboundLookup, type OutboundResult, parseRetryAfter } from './outbound.js';

/** What a local server saw of one request. */
interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local server answering with `handle`; `seen` lists every request it got, body read. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      handle(req, res);
    });
  });
  const base = await listening(server);
  return { server, base, port: new URL(base).port, seen };
}

/** Loopback servers are reached only with both test switches on. */
const local = createOutboundSender({ allowHttp: true, allowPrivateAddresses: true });

/** A resolver that knows only `names`, and counts what it was asked. */
function fakeResolver(names: Record<string, string[]>) {
  const asked: string[] = [];
  const lookup: OutboundLookup = async (hostname) => {
    asked.push(hostname);
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, asked };
}

function refusal(result: OutboundResult): string {
  expect(result.kind).toBe('refused');
  return result.kind === 'refused' ? result.reason : '';
}

describe('outbound sender: what it refuses', () => {
  // A resolver that fails the test if asked: every one of these is refused from the URL alone.
  const { lookup, asked } = fakeResolver({});
  const strict = createOutboundSender({ lookup });
  const strictWithHttp = createOutboundSender({ allowHttp: true, lookup });

  it('refuses http: by default, and any other scheme always', async () => {
    expect(refusal(await strict.send({ url: 'http://example.com/hook' }))).toMatch(/scheme http:/);
    expect(refusal(await strictWithHttp.send({ url: 'ftp://example.com/hook' }))).toMatch(/scheme ftp:/);
    expect(refusal(await strictWithHttp.send({ url: 'file:///etc/passwd' }))).toMatch(/scheme file:/);
    expect(refusal(await strict.send({ url: 'not a url' }))).toMatch(/not a valid URL/);
  });

  it.each([
    ['https://127.0.0.1/', /127\.0\.0\.1, a loopback/],
    ['https://127.1.2.3:8443/', /loopback/],
    ['https://[::1]/', /::1, a loopback/],
    ['https://[::ffff:127.0.0.1]/', /loopback/],
    ['https://10.0.0.1/', /10\.0\.0\.1, a private/],
    ['https://172.16.5.4/', /private/],
    ['https://192.168.1.1/', /private/],
    ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254, a linkLocal/],
    ['https://100.64.0.1/', /carrierGradeNat/],
    ['https://0.0.0.0/', /0\.0\.0\.0, a unspecified/],
    ['https://255.255.255.255/', /broadcast/],
    ['https://224.0.0.1/', /multicast/],
    ['https://[fe80::1]/', /linkLocal/],
    ['https://[fc00::1]/', /uniqueLocal/],
    ['https://[::]/', /unspecified/],
    ['https://[::ffff:10.0.0.1]/', /private/],
    ['https://[64:ff9b::7f00:1]/', /loopback/],
    ['https://[2002:7f00:1::1]/', /6to4/],
    ['https://[2001::1]/', /teredo/],
    ['https://[::7f00:1]/', /reserved/],
    ['https://[2001:db8::1]/', /reserved/],
  ])('refuses %s', async (url, reason) => {
    expect(refusal(await strict.send({ url }))).toMatch(reason);
  });

  it('refuses the IPv4 forms that URL parsing turns into 127.0.0.1: decimal, hex, octal, short', async () => {
    for (const url of ['http://2130706433/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://127.1/']) {
      expect(refusal(await strictWithHttp.send({ url }))).toMatch(/127\.0\.0\.1, a loopback/);
    }
  });

  it("refuses 'localhost' and any name under it without resolving them", async () => {
    for (const url of [
      'https://localhost/',
      'https://x.localhost/',
      'https://LOCALHOST./',
      'https://a.b.localhost:8443/',
    ]) {
      expect(refusal(await strict.send({ url }))).toMatch(/localhost is a local name/);
    }
    expect(asked).toEqual([]);
  });

  it('refuses a URL that carries a user name or password', async () => {
    expect(refusal(await strict.send({ url: 'https://user:secret@example.com/' }))).toMatch(/user name or password/);
    expect(refusal(await strict.send({ url: 'https://user@example.com/' }))).toMatch(/user name or password/);
    expect(refusal(await strict.send({ url: 'https://secret@example.com/' }))).not.toMatch(/secret/);
  });

  it('refuses a host that is not among allowedHosts, exact or under a *. pattern', async () => {
    const { lookup: resolver, asked: resolved } = fakeResolver({});
    const sender = createOutboundSender({ allowedHosts: ['hooks.example.com', '*.push.example'], lookup: resolver });
    expect(refusal(await sender.send({ url: 'https://evil.example.com/' }))).toMatch(/evil\.example\.com is not among/);
    expect(refusal(await sender.send({ url: 'https://push.example/' }))).toMatch(/not among/);
    expect(refusal(await sender.send({ url: 'https://xpush.example/' }))).toMatch(/not among/);
    expect(resolved).toEqual([]);
    // The allowed ones get as far as resolving (which this resolver fails).
    expect((await sender.send({ url: 'https://hooks.example.com/' })).kind).toBe('failed');
    expect((await sender.send({ url: 'https://a.b.push.example/' })).kind).toBe('failed');
    expect(resolved).toEqual(['hooks.example.com', 'a.b.push.example']);
  });

  it('refuses a host name that resolves to a non-public address, or to one among public ones', async () => {
    const { lookup: resolver, asked: resolved } = fakeResolver({
      'evil.test': ['127.0.0.1'],
      'mixed.test': ['93.184.215.14', '10.1.2.3'],
      'mapped.test': ['::ffff:169.254.169.254'],
    });
    const sender = createOutboundSender({ allowHttp: true, lookup: resolver });
    expect(refusal(await sender.send({ url: 'http://evil.test/' }))).toBe(
      'evil.test resolves to 127.0.0.1, a loopback address',
    );
    expect(refusal(await sender.send({ url: 'https://mixed.test/' }))).toMatch(/10\.1\.2\.3, a private/);
    expect(refusal(await sender.send({ url: 'https://mapped.test/' }))).toMatch(/linkLocal/);
    expect(resolved).toEqual(['evil.test', 'mixed.test', 'mapped.test']);
  });
});

describe('outbound sender: sending', () => {
  it('POSTs the body with its headers, Content-Length and User-Agent, and returns status, headers, body', async () => {
    const { base, seen } = await serve((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-trace': 'abc' }).end('{"ok":true}');
    });
    const result = await local.send({
      url: `${base}/hook?x=1`,
      headers: { 'content-type': 'application/json', authorization: 'Bearer s3cret' },
      body: '{"hello":"wörld"}',
    });
    expect(result).toMatchObject({
      kind: 'answered',
      status: 201,
      body: '{"ok":true}',
      retryAfterMs: null,
      headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/hook?x=1', body: '{"hello":"wörld"}' });
    expect(seen[0]!.headers).toMatchObject({
      'content-length': String(Buffer.byteLength('{"hello":"wörld"}')),
      'user-agent': 'Tidings',
      authorization: 'Bearer s3cret',
    });
  });

  it("keeps the caller's User-Agent and method, and sends a Uint8Array body as it is", async () => {
    const { base, seen } = await serve((_req, res) => res.writeHead(204).end());
    const result = await local.send({
      url: base,
      method: 'PUT',
      headers: { 'User-Agent': 'Custom/1', 'Content-Length': '999' },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(result).toMatchObject({ kind: 'answered', status: 204, body: '' });
    expect(seen[0]).toMatchObject({ method: 'PUT', body: '\u0001\u0002\u0003' });
    expect(seen[0]!.headers).toMatchObject({ 'user-agent': 'Custom/1', 'content-length': '3' });
  });

  it('connects to the very address its resolver gave, resolving once', async () => {
    const { port, seen } = await serve((_req, res) => res.end('pinned'));
    const { lookup, asked } = fakeResolver({ 'pinned.test': ['127.0.0.1'] });
    const sender = createOutboundSender({ allowHttp: true, allowPrivateAddresses: true, lookup });
    const result = await sender.send({ url: `http://pinned.test:${port}/via-name` });
    expect(result).toMatchObject({ kind: 'answered', status: 200, body: 'pinned' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: '/via-name', headers: { host: `pinned.test:${port}` } });
    expect(asked).toEqual(['pinned.test']);
  });

  it('keeps a connection alive per origin, reused without resolving again; another name resolves and is checked anew', async () => {
    const { server, port } = await serve((_req, res) => res.end('kept'));
    let connections = 0;
    server.on('connection', () => connections++);
    const { lookup, asked } = fakeResolver({ 'kept.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
    const sender = createOutboundSender({ allowHttp: true, allowPrivateAddresses: true, lookup });
    for (let i = 0; i < 3; i++) {
      expect(await sender.send({ url: `http://kept.test:${port}/${i}`, body: 'x' })).toMatchObject({ status: 200 });
    }
    expect(connections).toBe(1);
    expect(asked).toEqual(['kept.test']);

    expect(await sender.send({ url: `http://other.test:${port}/` })).toMatchObject({ status: 200 });
    expect(connections).toBe(2);
    expect(asked).toEqual(['kept.test', 'other.test']);

    sender.close();
    expect(await sender.send({ url: `http://kept.test:${port}/after-close` })).toMatchObject({ status: 200 });
    expect(connections).toBe(3);
    expect(asked).toEqual(['kept.test', 'other.test', 'kept.test']);
    sender.close();
  });

  it('never reuses a connection whose answer it did not read whole', async () => {
    const { server, port } = await serve((req, res) => {
      if (req.url === '/big') res.end('y'.repeat(4096));
      else res.end('small');
    });
    let connections = 0;
    server.on('connection', () => connections++);
    const sender = createOutboundSender({ allowHttp: true, allowPrivateAddresses: true, maxResponseBytes: 16 });
    expect(await sender.send({ url: `http://127.0.0.1:${port}/big` })).toMatchObject({ body: 'y'.repeat(16) });
    expect(await sender.send({ url: `http://127.0.0.1:${port}/small` })).toMatchObject({ body: 'small' });
    expect(connections).toBe(2);
    sender.close();
  });

  it('returns a 302 as it is and does not follow it', async () => {
    const target = await serve((_req, res) => res.end('followed'));
    const { base } = await serve((_req, res) => res.writeHead(302, { location: `${target.base}/next` }).end());
    const result = await local.send({ url: `${base}/start` });
    expect(result).toMatchObject({ kind: 'answered', status: 302, headers: { location: `${target.base}/next` } });
    expect(target.seen).toEqual([]);
  });

  it('fails with timeout when no answer comes within timeoutMs, and closes the connection', async () => {
    let serverSide: IncomingMessage | undefined;
    const { base } = await serve((req) => {
      serverSide = req; // never answered
    });
    const sender = createOutboundSender({ allowHttp: true, allowPrivateAddresses: true, timeoutMs: 200 });
    const result = await sender.send({ url: base, body: 'x' });
    expect(result).toMatchObject({ kind: 'failed', reason: 'timeout' });
    if (result.kind === 'failed') {
      expect(result.durationMs).toBeGreaterThanOrEqual(190);
      expect(result.durationMs).toBeLessThan(5000);
    }
    if (!serverSide!.socket.destroyed) await once(serverSide!.socket, 'close');
  });

  it('fails with timeout when the body stalls after the status line', async () => {
    const { base } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part');
    });
    const sender = createOutboundSender({ allowHttp: true, allowPrivateAddresses: true, timeoutMs: 200 });
    expect(await sender.send({ url: base })).toMatchObject({ kind: 'failed', reason: 'timeout' });
  });

  it('cuts an endless body at maxResponseBytes and closes the connection', async () => {
    let closed: Promise<unknown> | undefined;
    const { base } = await serve((_req, res) => {
      closed = once(res, 'close');
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'a');
      // Writes for as long as the client reads: only the client's closing ends this answer.
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const sender = createOutboundSender({ allowHttp: true, allowPrivateAddresses: true, maxResponseBytes: 1000 });
    const result = await sender.send({ url: base });
    expect(result).toMatchObject({ kind: 'answered', status: 200 });
    expect(result.kind === 'answered' && result.body).toBe('a'.repeat(1000));
    await closed;
  });

  it('reads Retry-After from the answer, in seconds and as an HTTP-date', async () => {
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    const { base } = await serve((req, res) => {
      res.writeHead(req.url === '/seconds' ? 429 : 503, { 'retry-after': req.url === '/seconds' ? '120' : inAMinute });
      res.end();
    });
    expect(await local.send({ url: `${base}/seconds` })).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    const dated = await local.send({ url: `${base}/date` });
    expect(dated).toMatchObject({ status: 503 });
    const ms = dated.kind === 'answered' ? dated.retryAfterMs : null;
    expect(ms).toBeGreaterThan(55_000);
    expect(ms).toBeLessThanOrEqual(60_000);
  });

  it('fails with network when the connection is refused, and says nothing of the request headers', async () => {
    const { server, base } = await serve(() => {});
    server.close();
    await once(server, 'close');
    const result = await local.send({ url: base, headers: { authorization: 'Bearer s3cret-token' }, body: 'x' });
    expect(result).toMatchObject({ kind: 'failed', reason: 'network' });
    expect(result.kind === 'failed' && result.message).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(result)).not.toMatch(/s3cret/);
  });

  it('refuses a header Node cannot send without quoting its value', async () => {
    const { base, seen } = await serve((_req, res) => res.end());
    const result = await local.send({ url: base, headers: { authorization: 'Bearer s3cret\r\nX-Injected: 1' } });
    expect(refusal(result)).toBe('a request header has an invalid name or value');
    expect(JSON.stringify(result)).not.toMatch(/s3cret/);
    expect(seen).toEqual([]);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter(' 5 ', now)).toBe(5_000);
  });

  it('reads an HTTP-date in each of its three forms, relative to now', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Thursday, 01-Jan-26 12:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Thu Jan  1 12:00:05 2026', now)).toBe(5_000);
  });

  it('is 0 for a date in the past, never negative', () => {
    expect(parseRetryAfter('Wed, 31 Dec 2025 12:00:00 GMT', now)).toBe(0);
  });

  it('is null when absent or neither form', () => {
    for (const value of [
      null,
      '',
      '-5',
      '1.5',
      'soon',
      '2026-01-01T12:00:00Z',
      'Thu, 31 Feb 2026 12:00:00 GMT',
      '1e3',
    ]) {
      expect(parseRetryAfter(value, now)).toBeNull();
    }
  });
});
