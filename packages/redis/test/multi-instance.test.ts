import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { createTidings, silentLogger, type Tidings } from '@tidings/core';
import { createSqliteStore } from '@tidings/store-sqlite';
import {
  deleteKeys,
  SHARED_REDIS_URL,
  sharedClient,
  startPrivateRedis,
  uniquePrefix,
} from '@tidings/test-support/redis-fixtures.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisHub, type RedisHub } from '../src/redis-hub.js';
import { createRedisLimiter } from '../src/redis-limiter.js';

const prefix = uniquePrefix('instances');
let admin: Awaited<ReturnType<typeof sharedClient>>;
let dir: string;

beforeAll(async () => {
  admin = await sharedClient();
  dir = mkdtempSync(join(tmpdir(), 'tidings-instances-'));
});
afterAll(async () => {
  await deleteKeys(admin, prefix);
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Instance {
  tidings: Tidings;
  hub: RedisHub;
  request(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

let run = 0;

/** Two Tidings instances on one SQLite file, as two processes would be, sharing Redis. */
async function twoInstances(extra: { catchUpIntervalMs?: number } = {}, url = SHARED_REDIS_URL) {
  const path = join(dir, `tidings-${run}.db`);
  const scope = `${prefix}${run++}:`;
  const open = async (): Promise<Instance> => {
    const store = createSqliteStore({ path });
    const hub = createRedisHub({ url, channel: `${scope}hub`, logger: silentLogger });
    const limiter = createRedisLimiter({ url, prefix: `${scope}limit:`, logger: silentLogger });
    await Promise.all([hub.ready(), limiter.ready()]);
    const tidings = createTidings({
      store,
      hub,
      limiter,
      logger: silentLogger,
      limits: { perKey: 5 },
      sweepIntervalMs: 0,
      ...extra,
    });
    return {
      tidings,
      hub,
      request(requestPath, init = {}) {
        const headers = new Headers(init.headers);
        if (init.key) headers.set('Authorization', `Bearer ${init.key}`);
        let body = init.body;
        if (init.json !== undefined) {
          body = JSON.stringify(init.json);
          headers.set('Content-Type', 'application/json');
        }
        return tidings.fetch(new Request(`http://tidings.test${requestPath}`, { ...init, headers, body }), {
          clientAddress: '203.0.113.7',
        });
      },
      async close() {
        await tidings.close();
        await hub.close();
        await limiter.close();
        await store.close();
      },
    };
  };
  const a = await open();
  const b = await open();
  const account = await a.tidings.admin.createAccount({ email: 'owner@example.com', verified: true });
  const project = await a.tidings.admin.createProject({ accountId: account.id, name: 'Main' });
  const liveKey = (await a.tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key!;
  const send = (on: Instance, title: string, recipient = 'r') =>
    on.request('/v1/notifications', { method: 'POST', key: liveKey, json: { recipient, title } });
  /** Opens a browser's stream on one instance. */
  const openStream = async (on: Instance, recipient = 'r') => {
    const token = await a.tidings.createConnectToken({ projectId: project.id, recipient });
    const stream = readEvents(await on.request(`/v1/connect/${token.token}`));
    const ready = JSON.parse((await stream.next('ready')).data) as { browser_id: string; browser_secret: string };
    return { stream, browserId: ready.browser_id, secret: ready.browser_secret };
  };
  opened.push(a, b);
  return { a, b, project, liveKey, send, openStream };
}

const opened: Instance[] = [];
afterEach(async () => {
  for (const instance of opened.splice(0)) await instance.close();
});

/** Kills one hub's subscribing connection on the shared Redis, found by its name. */
async function killSubscriber(hub: RedisHub): Promise<void> {
  const list = (await admin.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub'])) as string;
  const line = list.split('\n').find((entry) => entry.includes(` name=tidings-hub-sub:${hub.instanceId} `));
  const id = line?.match(/\bid=(\d+)/)?.[1];
  if (!id) throw new Error('the subscriber connection was not found');
  await admin.sendCommand(['CLIENT', 'KILL', 'ID', id]);
}

/** Kills the connection of that name on the Redis `admin` is connected to. */
async function killConnection(admin: { sendCommand(args: string[]): Promise<unknown> }, name: string): Promise<void> {
  const list = (await admin.sendCommand(['CLIENT', 'LIST'])) as string;
  const id = list
    .split('\n')
    .find((entry) => entry.includes(` name=${name} `))
    ?.match(/\bid=(\d+)/)?.[1];
  if (!id) throw new Error(`no connection named ${name}`);
  await admin.sendCommand(['CLIENT', 'KILL', 'ID', id]);
}

const titles = (stream: ReturnType<typeof readEvents>) =>
  stream.events.filter((event) => event.event === 'notification').map((event) => JSON.parse(event.data).title);

describe('two instances on one store and one Redis', () => {
  it('a send on A reaches a stream held by B at once', async () => {
    // No catch-up timer: only the hub can bring it.
    const { a, b, send, openStream } = await twoInstances({ catchUpIntervalMs: 0 });
    const { stream } = await openStream(b);
    const started = Date.now();
    expect((await send(a, 'from A')).status).toBe(201);
    await stream.next('notification');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(titles(stream)).toEqual(['from A']);
  });

  it('loses nothing when B’s subscription is killed around sends', async () => {
    // The timer is far off: what the kill lost comes back through the catch-up on reconnect.
    const { a, b, send, openStream } = await twoInstances({ catchUpIntervalMs: 600_000 });
    const { stream } = await openStream(b);
    expect((await send(a, 'before')).status).toBe(201);
    await stream.next('notification');
    // One send while B reconnects: no later send shows a gap, so only B's catch-up on its
    // hub's return can bring it.
    await killSubscriber(b.hub);
    expect((await send(a, 'during')).status).toBe(201);
    await stream.next('notification', 2);
    // Several at once, while B reconnects again.
    await killSubscriber(b.hub);
    for (const title of ['burst 1', 'burst 2', 'burst 3']) expect((await send(a, title)).status).toBe(201);
    await stream.next('notification', 5);
    expect(titles(stream).sort()).toEqual(['before', 'burst 1', 'burst 2', 'burst 3', 'during']);
  });

  it('loses nothing when Redis restarts: what A sent while it was down reaches B once it is back', async () => {
    const redis = await startPrivateRedis();
    try {
      // The timer is far off: only the catch-up on the hub's return can bring what was lost.
      const { a, b, send, openStream } = await twoInstances({ catchUpIntervalMs: 600_000 }, redis.url);
      const { stream } = await openStream(b);
      expect((await send(a, 'before')).status).toBe(201);
      await stream.next('notification');
      await redis.stop();
      // The store alone decides a 201; the limiter counts in process meanwhile.
      expect((await send(a, 'while down')).status).toBe(201);
      await redis.start();
      await stream.until(() => titles(stream).length >= 2, 10_000);
      expect(titles(stream)).toEqual(['before', 'while down']);
      expect((await send(a, 'after')).status).toBe(201);
      await stream.until(() => titles(stream).length >= 3, 5_000);
      expect(titles(stream)).toEqual(['before', 'while down', 'after']);
    } finally {
      for (const instance of opened.splice(0)) await instance.close();
      await redis.close();
    }
  });

  it('a publish that times out reaches B’s stream through the store’s catch-up, long before the periodic one', async () => {
    const redis = await startPrivateRedis();
    const pauser = createClient({ url: redis.url });
    try {
      // The periodic catch-up is far off: only the hub's report of the dropped publish can bring it.
      const { a, b, send, openStream } = await twoInstances({ catchUpIntervalMs: 600_000 }, redis.url);
      const { stream } = await openStream(b);
      await pauser.connect();
      // Redis takes no write (PUBLISH included) for 2 s, and A's publishing connection dies with
      // its PUBLISH still waiting: the message is lost for good, as A's hub sees it fail.
      await pauser.sendCommand(['CLIENT', 'PAUSE', '2000', 'WRITE']);
      const sent = Date.now();
      expect((await send(a, 'timed out')).status).toBe(201);
      await killConnection(pauser, `tidings-hub:${a.hub.instanceId}`);
      await stream.until(() => titles(stream).length >= 1, 10_000);
      expect(titles(stream)).toEqual(['timed out']);
      // Past the pause, once A could name the browser to B: seconds, not the 10 minutes of the timer.
      expect(Date.now() - sent).toBeGreaterThanOrEqual(1_500);
      expect(Date.now() - sent).toBeLessThan(8_000);
      expect((await send(a, 'after')).status).toBe(201);
      await stream.until(() => titles(stream).length >= 2, 5_000);
      expect(titles(stream)).toEqual(['timed out', 'after']);
    } finally {
      await pauser.close().catch(() => {});
      for (const instance of opened.splice(0)) await instance.close();
      await redis.close();
    }
  });

  it('a suspension on A closes the project’s streams on B; a disconnect on A closes the browser’s stream on B', async () => {
    const { a, b, project, openStream } = await twoInstances({ catchUpIntervalMs: 0 });
    const onB = await openStream(b, 'r1');
    const disconnected = await openStream(b, 'r2');
    const response = await a.request(`/v1/browsers/${disconnected.browserId}/disconnect`, {
      method: 'POST',
      json: { browser_secret: disconnected.secret },
    });
    expect(response.status).toBe(204);
    await disconnected.stream.end();
    expect(onB.stream.ended).toBe(false);

    await a.tidings.admin.suspendProject(project.id);
    await onB.stream.end();
    expect(b.tidings.openStreams()).toBe(0);
  });

  it('counts one limit across both instances', async () => {
    const { a, b, send, openStream } = await twoInstances();
    await openStream(a);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(i % 2 === 0 ? a : b, `n${i}`)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  });
});
