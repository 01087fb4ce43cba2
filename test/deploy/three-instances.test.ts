import { assertBuilt } from '@tidings/test-support/cli-process.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from './cluster.js';
import { type FollowedStream, followStream } from './follow-stream.js';

/**
 * Three `tidings serve` instances on one PostgreSQL schema and one Redis, behind nginx with the
 * repository's proxy configuration, driven over HTTP as a customer's deployment would be.
 */
const SENDERS = 10;
const SENDS_PER_SENDER = 12;
const KILL_AFTER = 40;

let cluster: Cluster;
let accountId: string;
const followed: FollowedStream[] = [];

beforeAll(async () => {
  assertBuilt();
  cluster = await startCluster(3, {});
  accountId = (await cluster.cli<{ id: string }>(['account', 'create', '--email', 'ops@example.com', '--verified'])).id;
}, 120_000);

afterAll(async () => {
  for (const stream of followed) stream.stop();
  await cluster?.stop();
});

async function newProject(name: string, account = accountId): Promise<string> {
  return (await cluster.cli<{ id: string }>(['project', 'create', '--account', account, '--name', name])).id;
}

async function newKey(projectId: string): Promise<{ id: string; key: string }> {
  return cluster.cli(['key', 'create', '--project', projectId, '--mode', 'live']);
}

function api(
  base: string,
  path: string,
  key: string,
  init: { method?: string; json?: unknown; idempotencyKey?: string } = {},
) {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  if (init.idempotencyKey) headers['Idempotency-Key'] = init.idempotencyKey;
  return fetch(`${base}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

async function connectUrl(key: string, recipient: string, base = cluster.url): Promise<string> {
  const response = await api(cluster.url, '/v1/connect-tokens', key, { json: { recipient } });
  expect(response.status).toBe(201);
  const { token } = await response.json();
  return `${base}/v1/connect/${token}`;
}

/** A stream held by one given instance (its URL), or by whichever nginx picks. */
async function follow(key: string, recipient: string, base?: string): Promise<FollowedStream> {
  const stream = followStream(await connectUrl(key, recipient, base));
  followed.push(stream);
  await stream.until(() => stream.open, 'the stream to open');
  return stream;
}

async function send(base: string, key: string, recipient: string, title: string, idempotencyKey?: string) {
  const response = await api(base, '/v1/notifications', key, { json: { recipient, title }, idempotencyKey });
  expect(response.status).toBe(201);
  return (await response.json()).id as string;
}

describe('three instances behind nginx, on PostgreSQL and Redis', () => {
  it('counts the limits exactly across instances: 60 per key pass in a window, then 429 with an honest Retry-After', async () => {
    const { key } = await newKey(await newProject('limits'));
    const started = Date.now();
    const statuses: number[] = [];
    let retryAfter = 0;
    // One at a time through nginx, which hands them to the three instances in turn.
    for (let index = 0; index < 75; index++) {
      const response = await api(cluster.url, '/v1/notifications/ntf_unknown', key);
      statuses.push(response.status);
      if (response.status === 429) retryAfter = Number(response.headers.get('retry-after'));
      await response.arrayBuffer();
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    expect(statuses.slice(0, 60)).toEqual(Array(60).fill(404));
    expect(statuses.slice(60)).toEqual(Array(15).fill(429));
    // The first request leaves the window 60 s after it was made: no sooner, and not much later.
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(60 - elapsedSeconds));
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('brings a send through any instance to the streams that every other instance holds', async () => {
    const { key } = await newKey(await newProject('fan-out'));
    const streams = await Promise.all(cluster.instances.map((instance) => follow(key, 'fan', instance.url)));
    const ids: string[] = [];
    for (const instance of cluster.instances) ids.push(await send(instance.url, key, 'fan', `from ${instance.url}`));
    for (const stream of streams) {
      await stream.until(() => ids.every((id) => stream.notifications.has(id)), 'every send on every stream', 3000);
    }
  });

  it('keeps inbox counts exact under concurrent marks through every instance, and every device ends on them', async () => {
    const { key } = await newKey(await newProject('inbox'));
    const devices = await Promise.all(cluster.instances.map((instance) => follow(key, 'reader', instance.url)));
    const ids: string[] = [];
    for (let index = 0; index < 12; index++) {
      ids.push(await send(cluster.instances[index % 3]!.url, key, 'reader', `item ${index}`));
    }
    const actions = ['read', 'unread', 'seen', 'archive', 'unarchive', 'read'];
    const marks = Array.from({ length: 36 }, (_, index) => {
      const device = devices[index % devices.length]!;
      const instance = cluster.instances[(index + 1) % cluster.instances.length]!;
      const body = {
        browser_secret: device.browserSecret,
        action: actions[index % actions.length],
        ...(index % 9 === 0 ? { all: true } : { ids: [ids[index % ids.length], ids[(index * 5) % ids.length]] }),
      };
      return fetch(`${instance.url}/v1/browsers/${device.browserId}/inbox/mark`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: JSON.stringify(body),
      }).then((response) => response.status);
    });
    expect(await Promise.all(marks)).toEqual(Array(36).fill(200));
    const listed = async (archived: boolean) =>
      (await (await api(cluster.url, `/v1/recipients/reader/inbox?limit=100&archived=${archived}`, key)).json()) as {
        data: { read_at: string | null; seen_at: string | null }[];
        counts: { total: number; unread: number; unseen: number; version: number };
      };
    const live = await listed(false);
    expect((await listed(true)).data.length + live.data.length).toBe(12);
    expect(live.counts).toMatchObject({
      total: live.data.length,
      unread: live.data.filter((item) => item.read_at === null).length,
      unseen: live.data.filter((item) => item.seen_at === null).length,
    });
    // Each device keeps the counts of the highest version it was told of: the final ones.
    for (const device of devices) {
      const newest = () =>
        device.inboxUpdates.reduce((best, update) => (update.counts.version > best.counts.version ? update : best));
      await device.until(
        () => device.inboxUpdates.length > 0 && newest().counts.version === live.counts.version,
        'the final counts on every device',
        5000,
      );
      expect(newest().counts).toMatchObject(live.counts);
    }
  });

  it('loses nothing when the instances lose their pub/sub connections to Redis', async () => {
    const { key } = await newKey(await newProject('pubsub-cut'));
    const streams = await Promise.all(cluster.instances.map((instance) => follow(key, 'cut', instance.url)));
    const killed = await cluster.redis(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    expect(Number(killed)).toBeGreaterThanOrEqual(cluster.instances.length);
    const ids: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (const instance of cluster.instances)
        ids.push(await send(instance.url, key, 'cut', `after the cut ${round}`));
    }
    for (const stream of streams) {
      await stream.until(() => ids.every((id) => stream.notifications.has(id)), 'every send after the cut', 15_000);
    }
  });

  it('refuses a key revoked with the CLI at every instance, and a suspended project, whose streams close everywhere', async () => {
    const projectId = await newProject('suspend');
    const revoked = await newKey(projectId);
    const { key } = await newKey(projectId);
    for (const instance of cluster.instances) {
      expect((await api(instance.url, '/v1/notifications/ntf_unknown', revoked.key)).status).toBe(404);
    }
    await cluster.cli(['key', 'revoke', revoked.id]);
    for (const instance of cluster.instances) {
      expect((await api(instance.url, '/v1/notifications/ntf_unknown', revoked.key)).status).toBe(401);
    }

    const streams = cluster.instances.map(async (instance) => {
      const stream = followStream(await connectUrl(key, 'held', instance.url), { reconnect: false });
      followed.push(stream);
      await stream.until(() => stream.open, 'the stream to open');
      return stream;
    });
    const open = await Promise.all(streams);
    await cluster.cli(['project', 'suspend', projectId]);
    for (const instance of cluster.instances) {
      const response = await api(instance.url, '/v1/notifications/ntf_unknown', key);
      expect(response.status).toBe(403);
      expect((await response.json()).code).toBe('PROJECT_SUSPENDED');
    }
    for (const stream of open) await stream.until(() => stream.stopped, 'the stream to close', 5000);
    // Five CLI processes and three instances' streams, one after another, while other suites run.
  }, 60_000);

  it('loses no acknowledged send when one instance is killed under load; its browsers resume on another', async () => {
    // An account, a project and a key per sender of their own, so that the limits (60 per key,
    // 300 per project, 600 per account) leave room for every send and retry.
    const account = (
      await cluster.cli<{ id: string }>(['account', 'create', '--email', 'load@example.com', '--verified'])
    ).id;
    const projectId = await newProject('kill', account);
    const keys: string[] = [];
    for (let index = 0; index < SENDERS; index++) keys.push((await newKey(projectId)).key);
    // Six browsers through nginx: two on each instance.
    const streams: FollowedStream[] = [];
    for (let index = 0; index < 6; index++) streams.push(await follow(keys[0]!, 'load'));
    const victim = cluster.instances[1]!;

    const acknowledged = new Map<string, string>();
    const sender = async (worker: number) => {
      for (let n = 0; n < SENDS_PER_SENDER; n++) {
        const idempotencyKey = `kill-${worker}-${n}`;
        const seen: string[] = [];
        for (;;) {
          const response = await api(cluster.url, '/v1/notifications', keys[worker]!, {
            json: { recipient: 'load', title: idempotencyKey },
            idempotencyKey,
          }).catch((error: unknown) => String(error));
          if (typeof response !== 'string' && response.status === 201) {
            acknowledged.set(idempotencyKey, (await response.json()).id);
            break;
          }
          // Cut off by the kill (a dropped connection or nginx's 502): retry with the same key.
          seen.push(typeof response === 'string' ? response : `${response.status} ${await response.text()}`);
          expect(seen.length, seen.join('\n')).toBeLessThan(30);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        if (acknowledged.size === KILL_AFTER && victim.child.exitCode === null) victim.child.kill('SIGKILL');
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, (_, worker) => sender(worker)));
    expect(victim.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.size).toBe(SENDERS * SENDS_PER_SENDER);

    const ids = [...acknowledged.values()];
    for (const stream of streams) {
      await stream.until(() => ids.every((id) => stream.notifications.has(id)), 'every acknowledged send', 30_000);
    }
    // The streams the killed instance held came back, on another instance, as the same browsers.
    expect(streams.filter((stream) => stream.connections > 1).length).toBeGreaterThanOrEqual(1);

    const url = new URL(cluster.db);
    const schema = url.searchParams.get('schema')!;
    url.search = '';
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT count(*)::int AS count FROM "${schema}".notifications WHERE recipient = 'load'`,
      );
      // One notification per idempotency key, however many times the cut ones were retried.
      expect(rows[0].count).toBe(SENDERS * SENDS_PER_SENDER);
    } finally {
      await client.end();
    }
  }, 90_000);
});
