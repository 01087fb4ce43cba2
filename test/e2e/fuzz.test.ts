import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertBuilt,
  createKeyWithCli,
  createProjectWithCli,
  type ServeProcess,
  startServe,
} from '@tidings/test-support/cli-process.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Bad input stays harmless: random and hostile requests against `tidings serve`, started as a
 * process, over real HTTP (fetch) and raw sockets (broken framing). Never a 5xx, every 4xx a
 * problem document, no secret in the log, and the server still serves afterwards. Bounded in
 * count (fast-check's runs, a fixed list of framings) and in time (a per-request timeout).
 */
let dir: string;
let server: ServeProcess;
let liveKey: string;
let testKey: string;
let token: string;
let browserId: string;
let browserSecret: string;

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'tidings-fuzz-'));
  const db = join(dir, 'tidings.db');
  const config = join(dir, 'tidings.json');
  // Limits high enough that the fuzz reaches the routes' own checks, not only 429s.
  await writeFile(
    config,
    JSON.stringify({
      limits: {
        perKey: 1e6,
        perProject: 1e6,
        perAccount: 1e6,
        invalidKeyPerIp: 1e6,
        connectPerIp: 1e6,
        eventsPerIp: 1e6,
      },
    }),
  );
  const { projectId } = await createProjectWithCli(db);
  liveKey = (await createKeyWithCli(db, projectId, 'live')).key;
  testKey = (await createKeyWithCli(db, projectId, 'test')).key;
  server = await startServe(['--db', db, '--port', '0', '--config', config]);
  const minted = await fetch(`${server.url}/v1/connect-tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
    body: '{"recipient":"fuzz-user"}',
  });
  token = ((await minted.json()) as { token: string }).token;
  const registered = await fetch(`${server.url}/v1/connect/${token}`, { method: 'POST' });
  ({ browser_id: browserId, browser_secret: browserSecret } = (await registered.json()) as {
    browser_id: string;
    browser_secret: string;
  });
});

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await rm(dir, { recursive: true, force: true });
});

/** Checks one answer: no 5xx, and a 4xx is problem details that say the same status. */
async function expectHarmless(response: Response, what: string): Promise<void> {
  expect(response.status, what).toBeLessThan(500);
  const text = await response.text();
  if (response.status < 400) return;
  expect(response.headers.get('content-type'), `${what}: ${text}`).toBe('application/problem+json');
  if (text === '') return; // HEAD: the headers say it, there is no body to check.
  const problem = JSON.parse(text) as Record<string, unknown>;
  expect(problem.status, what).toBe(response.status);
  expect(problem.code, what).toEqual(expect.any(String));
  expect(problem.request_id, what).toMatch(/^req_/);
}

/**
 * fetch, tried again once when a kept-alive connection was closed under it: the server closes
 * idle connections after a few seconds, and a request that fetch sends on one just then fails
 * with "other side closed" without the server having seen it. A crash would fail the retry.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  const attempt = () => fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  try {
    return await attempt();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code !== 'UND_ERR_SOCKET') throw error;
    return attempt();
  }
}

const ascii = (max: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map(String.fromCharCode), maxLength: max });
const segment = fc.oneof(
  ascii(40).map(encodeURIComponent),
  fc.constantFrom(
    '..',
    '%2e%2e',
    '%00',
    '%ff',
    '%',
    '{id}',
    'ntf_01jd',
    'brw_x',
    'ct_',
    ' '.repeat(3),
    'a'.repeat(3000),
  ),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);

describe('tidings serve under random and hostile input', () => {
  it('answers random requests over HTTP with no 5xx and problem details for every 4xx', async () => {
    const paths = fc.oneof(
      fc.constantFrom(
        '/v1/notifications',
        '/v1/connect-tokens',
        '/v1/events',
        '/healthz',
        '/',
        '/demo',
        '/v2/notifications',
      ),
      fc
        .tuple(fc.constantFrom('/v1/notifications/', '/v1/connect/', '/v1/browsers/', '/v1/', '/'), segment)
        .map(([a, b]) => a + b),
      fc.constantFrom(`/v1/connect/${token}`, `/v1/browsers/${browserId}/disconnect`),
      fc
        .tuple(fc.constantFrom('/v1/notifications', `/v1/connect/${token}`), ascii(30))
        .map(([a, q]) => `${a}?${encodeURIComponent(q)}=${q.length}`),
    );
    const authorization = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(
        `Bearer ${liveKey}`,
        `Bearer ${testKey}`,
        `bearer ${testKey}`,
        `Bearer ${liveKey} extra`,
        'Bearer',
        'Basic dXNlcjpwYXNz',
      ),
      ascii(60).map((value) => `Bearer ${value}`),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.json({ maxDepth: 4 }),
      fc
        .record(
          {
            recipient: fc.oneof(fc.constant('fuzz-user'), ascii(140), fc.integer()),
            title: fc.oneof(ascii(210), fc.constant(''), fc.constant(null)),
            body: fc.oneof(ascii(50), fc.integer(), fc.constant(null)),
            url: fc.oneof(fc.webUrl(), ascii(30), fc.constant('javascript:alert(1)')),
            data: fc.oneof(fc.object({ maxDepth: 3 }), fc.array(fc.integer()), fc.constant('x'.repeat(5000))),
            ttl: fc.oneof(fc.integer(), fc.double(), ascii(5)),
            browser_id: fc.constantFrom(browserId, 'brw_nope', ''),
            browser_secret: fc.constantFrom(browserSecret, `${browserSecret}x`, ''),
            events: fc.array(fc.record({ type: ascii(10), attempt_id: ascii(10), at: ascii(30) }), { maxLength: 3 }),
          },
          { requiredKeys: [] },
        )
        .map((value) => JSON.stringify(value)),
      fc.uint8Array({ maxLength: 300 }),
      fc.constant('x'.repeat(40 * 1024)),
    );
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      path: paths,
      authorization,
      contentType: fc.constantFrom(
        undefined,
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        'multipart/form-data',
      ),
      idempotencyKey: fc.option(ascii(300), { nil: undefined }),
      origin: fc.option(fc.constantFrom('https://evil.test', 'null'), { nil: undefined }),
      forwardedFor: fc.option(ascii(40), { nil: undefined }),
      lastEventId: fc.option(fc.oneof(ascii(40), fc.constant(`${browserId}.1`)), { nil: undefined }),
      body,
    });

    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        if (r.authorization !== undefined) headers.Authorization = r.authorization;
        if (r.contentType !== undefined) headers['Content-Type'] = r.contentType;
        if (r.idempotencyKey !== undefined) headers['Idempotency-Key'] = r.idempotencyKey;
        if (r.origin !== undefined) headers.Origin = r.origin;
        if (r.forwardedFor !== undefined) headers['X-Forwarded-For'] = r.forwardedFor;
        if (r.lastEventId !== undefined) headers['Last-Event-ID'] = r.lastEventId;
        const withBody = r.method !== 'GET' && r.method !== 'HEAD' && r.body !== undefined;
        const response = await fetchOnce(`${server.url}${r.path}`, {
          method: r.method,
          headers,
          body: withBody ? r.body : undefined,
        });
        if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
          // A stream opened: it is a 200 and would run forever.
          expect(response.status).toBe(200);
          await response.body?.cancel();
          return;
        }
        await expectHarmless(response, `${r.method} ${r.path.slice(0, 80)}`);
      }),
      { numRuns: 300, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
  }, 90_000);

  it('answers broken framing over raw sockets with a problem document, or closes', async () => {
    const { hostname, port } = new URL(server.url);
    const framings = [
      'GARBAGE\r\n\r\n',
      'GET\r\n\r\n',
      'GET / HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /v1/notifications HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'GET /v1/notifications HTTP/1.1\r\nHost: x\r\nX: \u0000\r\n\r\n',
      'POST /v1/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      'POST /v1/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'POST /v1/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
      'POST /v1/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'POST /v1/notifications HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
      `POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}GARBAGE\r\n\r\n`,
      `GET /v1/notifications HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(80 * 1024)}\r\n\r\n`,
      'GET /v1/notifications HTTP/1.1\r\nHost: [::1\r\n\r\n',
      'GET http://evil.test/v1/notifications HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/notifications\\..\\x HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /v1/connect/${token} HTTP/1.0\r\n\r\n`,
      '\r\n\r\n\r\n',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    ];
    for (const framing of framings) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname);
        let received = '';
        const timer = setTimeout(() => {
          socket.destroy();
          resolve(received);
        }, 2000);
        socket.on('data', (data) => {
          received += data;
          // An event stream answered: enough to judge its head.
          if (received.includes('text/event-stream')) {
            clearTimeout(timer);
            socket.destroy();
            resolve(received);
          }
        });
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(received);
        });
        socket.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
          reject(error);
        });
        socket.write(framing);
      });
      const what = JSON.stringify(framing.slice(0, 60));
      if (answer === '') continue; // Closed without an answer: harmless.
      // Every answer on the connection (a pipelined second one included).
      for (const match of answer.matchAll(/HTTP\/1\.[01] (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/g)) {
        const status = Number(match[1]);
        expect(status, what).toBeLessThan(500);
        if (status >= 400) expect(match[2]?.toLowerCase(), what).toContain('content-type: application/problem+json');
      }
    }
  }, 90_000);

  it('keeps serving, logged no error, and wrote no secret', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const sent = await fetch(`${server.url}/v1/notifications`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
      body: '{"recipient":"fuzz-user","title":"still here"}',
    });
    expect([201, 409]).toContain(sent.status);
    const log = server.stderr();
    expect(log).not.toMatch(/"level":"error"/);
    for (const secret of [liveKey, testKey, token, browserSecret]) expect(log).not.toContain(secret.slice(-20));
  });
});
