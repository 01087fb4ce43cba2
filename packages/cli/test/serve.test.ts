import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assertBuilt,
  createKeyWithCli,
  createProjectWithCli,
  runTidings,
  type ServeProcess,
  startServe,
  tempDir,
  tidingsJson,
} from '@tidings/test-support/cli-process.js';
import { conformingFetch } from '@tidings/test-support/openapi-conformance.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/** The built files of `@tidings/browser` that the server serves. */
const browserDist = fileURLToPath(new URL('../../browser/dist/', import.meta.url));

let dir: string;
let remove: () => Promise<void>;
const started: ServeProcess[] = [];

beforeAll(async () => {
  assertBuilt();
  ({ dir, remove } = await tempDir());
});
afterEach(() => {
  for (const server of started.splice(0)) if (server.child.exitCode === null) server.child.kill('SIGKILL');
});
afterAll(async () => remove());

async function serve(args: string[]): Promise<ServeProcess> {
  const server = await startServe(args);
  started.push(server);
  return server;
}

/** Sets up an account, a project and a live key through the CLI. */
async function liveKey(db: string): Promise<{ projectId: string; keyId: string; key: string }> {
  const { projectId } = await createProjectWithCli(db);
  const key = await createKeyWithCli(db, projectId, 'live');
  return { projectId, keyId: key.id, key: key.key };
}

function notify(url: string, key: string): Promise<Response> {
  return conformingFetch(`${url}/v1/notifications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ recipient: 'nobody-yet', title: 'Hi' }),
  });
}

async function tidingsJsonWith<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await runTidings([...args, '--json'], env);
  if (result.code !== 0)
    throw new Error(`tidings ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

async function code(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code;
}

describe('tidings serve', () => {
  it('prints exactly `listening on`, answers /healthz, and exits 0 on SIGTERM', async () => {
    const server = await serve(['--db', join(dir, 'health.db'), '--port', '0']);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toBe('http://127.0.0.1:0');
    expect(server.stdout()).toBe(`listening on ${server.url}\n`);
    const health = await conformingFetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await conformingFetch(`${server.url}/elsewhere`)).status).toBe(404);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('serves the browser SDK, the inbox build and the service worker at /sdk, as @tidings/browser ships them', async () => {
    const server = await serve(['--db', join(dir, 'sdk.db'), '--port', '0']);
    for (const name of ['tidings.global.js', 'tidings-push.global.js', 'tidings-inbox.global.js', 'tidings-sw.js']) {
      const response = await fetch(`${server.url}/sdk/${name}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const shipped = await readFile(join(browserDist, name), 'utf8');
      expect(await response.text()).toBe(shipped);
      const etag = response.headers.get('etag');
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await fetch(`${server.url}/sdk/${name}`, { headers: { 'if-none-match': etag! } });
      expect(again.status).toBe(304);
    }
    const worker = await fetch(`${server.url}/sdk/tidings-sw.js`);
    expect(worker.headers.get('service-worker-allowed')).toBe('/');
    expect((await fetch(`${server.url}/sdk/other.js`)).status).toBe(404);
  });

  it('refuses, on its next request, a key revoked and a project suspended by another process', async () => {
    const db = join(dir, 'shared.db');
    const server = await serve(['--db', db, '--port', '0']);
    const { projectId, keyId, key } = await liveKey(db);
    // The key works: the request gets as far as the recipient check.
    expect(await code(await notify(server.url, key))).toBe('NO_CONNECTED_BROWSER');

    await tidingsJson(['project', 'suspend', projectId, '--db', db]);
    const suspended = await notify(server.url, key);
    expect(suspended.status).toBe(403);
    expect(await code(suspended)).toBe('PROJECT_SUSPENDED');
    await tidingsJson(['project', 'resume', projectId, '--db', db]);
    expect(await code(await notify(server.url, key))).toBe('NO_CONNECTED_BROWSER');

    await tidingsJson(['key', 'revoke', keyId, '--db', db]);
    const revoked = await notify(server.url, key);
    expect(revoked.status).toBe(401);
    expect(await code(revoked)).toBe('UNAUTHORIZED');
    // A server and six CLI processes, one after another: seconds each while the other suites run.
  }, 60_000);

  it('closes open event streams and exits 0 on SIGINT', async () => {
    const db = join(dir, 'streams.db');
    const server = await serve(['--db', db, '--port', '0']);
    const { key } = await liveKey(db);
    const token = await conformingFetch(`${server.url}/v1/connect-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ recipient: 'u1' }),
    });
    expect(token.status).toBe(201);
    const { connect_url } = (await token.json()) as { connect_url: string };
    const stream = await conformingFetch(connect_url);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('ready');

    const since = Date.now();
    server.child.kill('SIGINT');
    // The stream ends (or is cut) rather than holding the shutdown open.
    await reader
      .read()
      .then(async function drain(chunk): Promise<void> {
        if (!chunk.done) return reader.read().then(drain);
      })
      .catch(() => {});
    expect(await server.exited).toBe(0);
    expect(Date.now() - since).toBeLessThan(1500);
  });

  it('applies --trust-proxy and a config file', async () => {
    const db = join(dir, 'config.db');
    const config = join(dir, 'limits.json');
    await writeFile(config, JSON.stringify({ limits: { invalidKeyPerIp: 2 } }));
    const server = await serve(['--db', db, '--port', '0', '--config', config, '--trust-proxy', '1']);
    const from = (ip: string) =>
      conformingFetch(`${server.url}/v1/notifications/ntf_x`, { headers: { 'x-forwarded-for': ip } }).then(
        (r) => r.status,
      );
    expect([await from('198.51.100.1'), await from('198.51.100.1'), await from('198.51.100.1')]).toEqual([
      401, 401, 429,
    ]);
    // Another forwarded address is another client: the proxy hop is believed.
    expect(await from('198.51.100.2')).toBe(401);
  });

  it('sends webhooks: to a local http: endpoint only with --webhooks-allow-http and --webhooks-allow-private', async () => {
    const received: { id: string; type: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        received.push({ id: String(req.headers['webhook-id']), type: JSON.parse(body).type });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const db = join(dir, 'webhooks.db');
      const { projectId, key } = await liveKey(db);
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const refused = await runTidings([
        'webhook',
        'create',
        '--project',
        projectId,
        '--url',
        url,
        '--events',
        '*',
        '--db',
        db,
      ]);
      expect(refused.code).not.toBe(0);
      const endpoint = await tidingsJsonWith<{ id: string }>(
        ['webhook', 'create', '--project', projectId, '--url', url, '--events', 'browser.connected', '--db', db],
        { TIDINGS_WEBHOOKS_ALLOW_HTTP: '1' },
      );
      const server = await serve(['--db', db, '--port', '0', '--webhooks-allow-http', '--webhooks-allow-private']);
      const token = await conformingFetch(`${server.url}/v1/connect-tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ recipient: 'ann' }),
      });
      expect(token.status).toBe(201);
      const { token: value } = (await token.json()) as { token: string };
      expect((await conformingFetch(`${server.url}/v1/connect/${value}`, { method: 'POST' })).status).toBe(201);
      const deadline = Date.now() + 10_000;
      while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(received).toEqual([{ id: expect.stringMatching(/^msg_/), type: 'browser.connected' }]);
      const messages = await tidingsJsonWith<{ id: string; status: string }[]>(
        ['webhook', 'messages', endpoint.id, '--db', db],
        {},
      );
      expect(messages).toMatchObject([{ id: received[0]!.id, status: 'delivered' }]);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('writes the rate limit headers in the form --rate-limit-headers names, and refuses another', async () => {
    const server = await serve(['--db', join(dir, 'legacy.db'), '--port', '0', '--rate-limit-headers', 'legacy']);
    // A 429 of the invalid-key limit carries them as every authenticated answer does.
    let last: Response | undefined;
    for (let i = 0; i < 121 && last?.status !== 429; i++) {
      last = await fetch(`${server.url}/v1/notifications/ntf_x`);
      await last.arrayBuffer();
    }
    expect(last?.status).toBe(429);
    expect(last?.headers.get('x-ratelimit-limit')).toBe('120');
    expect(last?.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(last?.headers.has('ratelimit')).toBe(false);
    const refused = await runTidings(['serve', '--db', join(dir, 'legacy.db'), '--rate-limit-headers', 'draft-9']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--rate-limit-headers must be one of draft, draft-7, legacy');
  });

  it.each([
    [{ limitz: {} }, 'unknown key "limitz"'],
    [{ limits: { perKey: -1 } }, 'perKey'],
    [{ limits: { perMinute: 1 } }, 'perMinute'],
  ])('refuses the config %j: exit 1 with a clear error', async (config, message) => {
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify(config));
    const result = await runTidings(['serve', '--db', join(dir, 'bad.db'), '--port', '0', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: VALIDATION_FAILED: /);
    expect(result.stderr).toContain(message);
  });

  it('listens on $TIDINGS_PORT without --port, and refuses one that is no port', async () => {
    const server = await startServe(['--db', join(dir, 'env-port.db')], { TIDINGS_PORT: '0' });
    started.push(server);
    // 0 picks a free port: had the variable been ignored, it would be 8787.
    expect(new URL(server.url).port).not.toBe('8787');
    const refused = await runTidings(['serve', '--db', join(dir, 'env-port.db')], { TIDINGS_PORT: 'http' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('TIDINGS_PORT must be a whole number');
  });

  it('refuses a missing or malformed config file', async () => {
    const missing = await runTidings([
      'serve',
      '--db',
      join(dir, 'bad.db'),
      '--config',
      join(dir, 'nope.json'),
      '--json',
    ]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: expect.stringContaining('ENOENT'),
    });
    const file = join(dir, 'broken.json');
    await writeFile(file, '{ "trustProxy": ');
    const broken = await runTidings(['serve', '--db', join(dir, 'bad.db'), '--config', file]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('is not JSON');
  });

  describe('--demo', () => {
    it('creates the demo once, saves it 0600 beside the db, and prints keys, page and a curl that works', async () => {
      const db = join(dir, 'demo.db');
      const first = await serve(['--db', db, '--port', '0', '--demo']);
      const out = await first.waitForStdout(/curl .*\n/);
      const projectId = /^demo project (proj_\w+)/m.exec(out)?.[1];
      const liveKey = /live key: (sk_live_\w{32})$/m.exec(out)?.[1];
      expect(projectId).toBeDefined();
      expect(out).toMatch(/test key: sk_test_\w{32}$/m);
      expect(out).toContain(`demo page: ${first.url}/demo`);
      const curl = out
        .split('\n')
        .find((line) => line.trim().startsWith('curl '))!
        .trim();
      expect(curl).toBe(
        `curl -X POST ${first.url}/v1/notifications -H "Authorization: Bearer ${liveKey}" -H "Content-Type: application/json" -d '{"recipient":"demo-user","title":"Hello from Tidings"}'`,
      );
      // The curl's request is authenticated: it stops only at "no connected browser" yet.
      expect(await code(await notify(first.url, liveKey!))).toBe('NO_CONNECTED_BROWSER');
      const page = await conformingFetch(`${first.url}/demo`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');

      const saved = `${db}.demo.json`;
      expect((await stat(saved)).mode & 0o777).toBe(0o600);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);

      const second = await serve(['--db', db, '--port', '0', '--demo']);
      const again = await second.waitForStdout(/curl .*\n/);
      expect(again).toContain(`demo project ${projectId}`);
      expect(again).toContain(`live key: ${liveKey}`);
      const accounts = await tidingsJson<unknown[]>(['account', 'list', '--db', db]);
      expect(accounts).toHaveLength(1);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    });

    it('prints the demo as one JSON line with --json', async () => {
      const db = join(dir, 'demo-json.db');
      const server = await serve(['--db', db, '--port', '0', '--demo', '--json']);
      const out = await server.waitForStdout(/^\{.*\}\n/m);
      const demo = JSON.parse(out.split('\n')[1]!);
      expect(demo).toEqual({
        object: 'demo',
        accountId: expect.stringMatching(/^acct_/),
        projectId: expect.stringMatching(/^proj_/),
        liveKey: expect.stringMatching(/^sk_live_[A-Za-z0-9]{32}$/),
        testKey: expect.stringMatching(/^sk_test_[A-Za-z0-9]{32}$/),
        url: server.url,
        file: `${db}.demo.json`,
        dashboard: {
          url: `${server.url}/dashboard`,
          email: 'demo@example.com',
          code: expect.stringMatching(/^\d{6}$/),
          minutes: 60,
        },
      });
    });

    it('leaves a store with accounts of its own alone', async () => {
      const db = join(dir, 'not-demo.db');
      await tidingsJson(['account', 'create', '--email', 'mine@example.com', '--db', db]);
      const server = await serve(['--db', db, '--port', '0', '--demo']);
      while (!server.stderr().includes('already holds accounts')) await new Promise((r) => setTimeout(r, 20));
      expect(server.stdout()).toBe(`listening on ${server.url}\n`);
      expect(server.stderr()).toContain('already holds accounts');
    });

    it('warns that the demo exposes its live key when bound beyond loopback, and not on loopback', async () => {
      // stdout and stderr are separate pipes: read stderr only once the process has exited.
      const stderrAfterExit = async (args: string[]) => {
        const server = await serve(args);
        while (!server.stdout().includes('curl')) await new Promise((r) => setTimeout(r, 20));
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
        return server.stderr();
      };
      expect(
        await stderrAfterExit(['--db', join(dir, 'wide.db'), '--port', '0', '--host', '0.0.0.0', '--demo']),
      ).toContain('warning: --demo on 0.0.0.0 shows the demo');
      expect(await stderrAfterExit(['--db', join(dir, 'local.db'), '--port', '0', '--demo'])).not.toContain('warning');
    });
  });
});
