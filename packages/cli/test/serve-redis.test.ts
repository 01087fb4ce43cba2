import { join } from 'node:path';
import {
  assertBuilt,
  createKeyWithCli,
  createProjectWithCli,
  runTidings,
  type ServeProcess,
  startServe,
  tempDir,
} from '@tidings/test-support/cli-process.js';
import {
  type PrivateRedis,
  type PrivateRedisCluster,
  startPrivateRedis,
  startPrivateRedisCluster,
} from '@tidings/test-support/redis-fixtures.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let dir: string;
let remove: () => Promise<void>;
let redis: PrivateRedis;
const started: ServeProcess[] = [];

beforeAll(async () => {
  assertBuilt();
  ({ dir, remove } = await tempDir());
  // A Redis of this test's own: the servers use the default key prefix and channel.
  redis = await startPrivateRedis();
});
afterEach(() => {
  for (const server of started.splice(0)) if (server.child.exitCode === null) server.child.kill('SIGKILL');
});
afterAll(async () => {
  await redis.close();
  await remove();
});

async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const server = await startServe(args, env);
  started.push(server);
  return server;
}

function post(url: string, key: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('tidings serve --redis', () => {
  it('runs two servers on one database as one service: a send on one reaches a stream on the other', async () => {
    const db = join(dir, 'two.db');
    const { projectId } = await createProjectWithCli(db);
    const { key } = await createKeyWithCli(db, projectId, 'live');
    const a = await serve(['--db', db, '--port', '0', '--redis', redis.url]);
    // The second takes the URL from the environment.
    const b = await serve(['--db', db, '--port', '0'], { TIDINGS_REDIS_URL: redis.url });

    const token = (await (await post(`${a.url}/v1/connect-tokens`, key, { recipient: 'r' })).json()) as {
      token: string;
    };
    const stream = readEvents(await fetch(`${b.url}/v1/connect/${token.token}`));
    await stream.next('ready');
    const sent = await post(`${a.url}/v1/notifications`, key, { recipient: 'r', title: 'across servers' });
    expect(sent.status).toBe(201);
    const event = await stream.next('notification');
    expect(JSON.parse(event.data).title).toBe('across servers');
    await stream.cancel();

    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  }, 60_000);

  it('refuses a URL that is not redis:// and a bad --redis-unreachable', async () => {
    const bad = await runTidings([
      'serve',
      '--db',
      join(dir, 'bad.db'),
      '--port',
      '0',
      '--redis',
      'http://x',
      '--json',
    ]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ code: 'VALIDATION_FAILED' });
    const usage = await runTidings(['serve', '--redis', redis.url, '--redis-unreachable', 'maybe']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--redis-unreachable');
  });
});

describe('tidings serve --redis-cluster', () => {
  let cluster: PrivateRedisCluster;
  beforeAll(async () => {
    cluster = await startPrivateRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('runs two servers on one Redis Cluster: a send on one reaches a stream on the other, limits counted there', async () => {
    const db = join(dir, 'cluster.db');
    const { projectId } = await createProjectWithCli(db);
    const { key } = await createKeyWithCli(db, projectId, 'live');
    const headers = ['--rate-limit-headers', 'legacy'];
    const a = await serve(['--db', db, '--port', '0', ...headers, '--redis-cluster', cluster.nodes.join(',')]);
    // The second takes the nodes from the environment, and only one of them.
    const b = await serve(['--db', db, '--port', '0', ...headers], { TIDINGS_REDIS_CLUSTER: cluster.nodes[1]! });

    const token = (await (await post(`${a.url}/v1/connect-tokens`, key, { recipient: 'r' })).json()) as {
      token: string;
    };
    const stream = readEvents(await fetch(`${b.url}/v1/connect/${token.token}`));
    await stream.next('ready');
    const sent = await post(`${a.url}/v1/notifications`, key, { recipient: 'r', title: 'across the cluster' });
    expect(sent.status).toBe(201);
    const event = await stream.next('notification');
    expect(JSON.parse(event.data).title).toBe('across the cluster');
    await stream.cancel();
    // The key's window is counted on the cluster, once for both servers.
    const second = await post(`${b.url}/v1/notifications`, key, { recipient: 'r', title: 'counted' });
    expect(second.status).toBe(201);
    const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));
    expect(remaining(sent)).toBeGreaterThan(0);
    expect(remaining(second)).toBe(remaining(sent) - 1);

    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  }, 60_000);

  it('refuses --redis with --redis-cluster, and a node without a port', async () => {
    const both = await runTidings(['serve', '--redis', 'redis://127.0.0.1:1', '--redis-cluster', cluster.nodes[0]!]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--redis-cluster');
    const bad = await runTidings([
      'serve',
      '--db',
      join(dir, 'bad-cluster.db'),
      '--port',
      '0',
      '--redis-cluster',
      'just-a-host',
      '--json',
    ]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
