import { type LimitScope, silentLogger } from '@tidings/core';
import { runLimiterConformance } from '@tidings/core/testing';
import {
  deleteKeys,
  type PrivateRedis,
  sharedClient,
  startPrivateRedis,
  uniquePrefix,
} from '@tidings/test-support/redis-fixtures.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisLimiter } from './redis-limiter.js';

const prefix = uniquePrefix('limiter');
let client: Awaited<ReturnType<typeof sharedClient>>;
let runs = 0;

beforeAll(async () => {
  client = await sharedClient();
});
afterAll(async () => {
  await deleteKeys(client, prefix);
  await client.close();
});

// Every property run gets keys of its own under this run's prefix, on one shared connection.
runLimiterConformance(
  'redis (the caller’s clock)',
  () => createRedisLimiter({ client, prefix: `${prefix}${runs++}:`, clock: 'caller', logger: silentLogger }),
  { runsFactor: 0.25 },
);

const MINUTE = 60_000;
const scope = (id: string, limit: number, windowMs = MINUTE, group?: string): LimitScope => ({
  name: id.split(':')[0]!,
  id,
  limit,
  windowMs,
  ...(group === undefined ? {} : { group }),
});

describe('createRedisLimiter', () => {
  it('decides on Redis’s clock by default, whatever the caller’s clocks say', async () => {
    const limiter = createRedisLimiter({ client, prefix: `${prefix}time:`, logger: silentLogger });
    const key = scope('key:k1', 2, 1_000);
    // Two instances whose clocks are a day apart count against one window.
    expect((await limiter.consume([key], 0)).allowed).toBe(true);
    expect((await limiter.consume([key], 86_400_000)).allowed).toBe(true);
    const refused = await limiter.consume([key], 0);
    expect(refused.allowed).toBe(false);
    if (refused.allowed || refused.unavailable) throw new Error('expected a refusal');
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(1_000);
    // Retry-After is measured on the clock that decides the retry: waiting it out is enough.
    await new Promise((resolve) => setTimeout(resolve, refused.retryAfterMs + 5));
    expect((await limiter.consume([key], 0)).allowed).toBe(true);
    await limiter.close();
  });

  it('keeps the scopes of one group under one hash tag, and each scope apart from others', async () => {
    const limiter = createRedisLimiter({ client, prefix: `${prefix}tags:`, logger: silentLogger });
    const group = 'account:acct_1';
    await limiter.consume(
      [
        scope('key:key_1', 5, MINUTE, group),
        scope('project:proj_1', 5, MINUTE, group),
        scope('account:acct_1', 5, MINUTE, group),
      ],
      0,
    );
    await limiter.consume([scope('ip-connect:203.0.113.9', 5)], 0);
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}tags:*` })) keys.push(...batch);
    expect(keys.sort()).toEqual(
      [
        `${prefix}tags:{account:acct_1}:account:acct_1`,
        `${prefix}tags:{account:acct_1}:key:key_1`,
        `${prefix}tags:{account:acct_1}:project:proj_1`,
        `${prefix}tags:{ip-connect:203.0.113.9}`,
      ].sort(),
    );
    // Idle keys leave on their own: two windows and a minute.
    const ttl = await client.pTTL(`${prefix}tags:{ip-connect:203.0.113.9}`);
    expect(ttl).toBeGreaterThan(2 * MINUTE);
    expect(ttl).toBeLessThanOrEqual(3 * MINUTE);
    await limiter.close();
  });

  it('admits exactly the limit across instances that share one Redis', async () => {
    const instances = Array.from({ length: 4 }, () =>
      createRedisLimiter({ client, prefix: `${prefix}shared:`, logger: silentLogger }),
    );
    const scopes = [scope('key:k', 100, MINUTE, 'account:a'), scope('account:a', 37, MINUTE, 'account:a')];
    const decisions = await Promise.all(
      Array.from({ length: 80 }, (_, i) => instances[i % instances.length]!.consume(scopes, Date.now())),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(37);
    for (const instance of instances) await instance.close();
  });

  it('decides the consumes of one turn in a few calls, each as if it had been alone, in order', async () => {
    const calls: string[][] = [];
    const counted = {
      get isReady() {
        return client.isReady;
      },
      sendCommand: (args: string[]) => {
        calls.push(args);
        return client.sendCommand(args);
      },
    };
    const limiter = createRedisLimiter({
      client: counted,
      prefix: `${prefix}turn:`,
      clock: 'caller',
      logger: silentLogger,
    });
    const busy = [scope('key:busy', 60, MINUTE, 'account:t'), scope('account:t', 1000, MINUTE, 'account:t')];
    const quiet = [scope('key:quiet', 5, MINUTE, 'account:q')];
    const now = Date.now();
    const [many, few] = await Promise.all([
      Promise.all(Array.from({ length: 150 }, (_, i) => limiter.consume(busy, now + i))),
      Promise.all(Array.from({ length: 8 }, () => limiter.consume(quiet, now))),
    ]);
    expect(many.map((decision) => decision.allowed)).toEqual(Array.from({ length: 150 }, (_, i) => i < 60));
    expect(many.slice(0, 60).map((decision) => decision.scopes[0]!.remaining)).toEqual(
      Array.from({ length: 60 }, (_, i) => 59 - i),
    );
    // The 61st, at now + 60, waits until the first of the window, at now, leaves it.
    expect(many[60]).toMatchObject({ allowed: false, retryAfterMs: MINUTE - 60 });
    expect(few.map((decision) => decision.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    // Two calls for the busy key (100, then 50), one for the quiet one.
    expect(calls.filter((args) => args[0] === 'EVALSHA' || args[0] === 'EVAL')).toHaveLength(3);
    await limiter.close();
  });

  it('refuses bad options at construction', () => {
    expect(() => createRedisLimiter({})).toThrow(/url, a client or a cluster/);
    expect(() => createRedisLimiter({ client, url: 'redis://127.0.0.1:1' })).toThrow(/one of url, client and cluster/);
    expect(() => createRedisLimiter({ client, prefix: 'a{b}:' })).toThrow(/prefix/);
    expect(() => createRedisLimiter({ client, whenUnreachable: 'guess' as 'refuse' })).toThrow(/whenUnreachable/);
    expect(() => createRedisLimiter({ client, commandTimeoutMs: 0 })).toThrow(/commandTimeoutMs/);
  });
});

describe('createRedisLimiter while Redis is out of reach', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.close();
  });

  const key = scope('key:k', 2, MINUTE, 'account:a');

  it('refuses with an unavailable decision when told to, and counts in Redis again once it is back', async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };
    const limiter = createRedisLimiter({
      url: redis.url,
      prefix: 'refuse:',
      whenUnreachable: 'refuse',
      unreachableRetryAfterMs: 2_000,
      logger,
    });
    await limiter.ready();
    expect((await limiter.consume([key], 0)).allowed).toBe(true);
    await redis.stop();
    for (let i = 0; i < 3; i++) {
      expect(await limiter.consume([key], 0)).toEqual({
        allowed: false,
        unavailable: true,
        retryAfterMs: 2_000,
        scopes: [],
      });
    }
    expect(warnings.filter((message) => message === 'rate limits cannot reach redis')).toHaveLength(1);
    await redis.start();
    // The restarted server lost the script cache and the counts (no persistence): NOSCRIPT is
    // answered by sending the script again.
    const deadline = Date.now() + 5_000;
    let decision = await limiter.consume([key], 0);
    while (decision.allowed === false && decision.unavailable && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      decision = await limiter.consume([key], 0);
    }
    expect(decision).toMatchObject({ allowed: true, scopes: [{ remaining: 1 }] });
    await limiter.close();
  });

  it('falls back to counting in process by default, exactly per instance', async () => {
    const limiter = createRedisLimiter({ url: redis.url, prefix: 'fallback:', logger: silentLogger });
    await limiter.ready();
    await redis.stop();
    expect((await limiter.consume([key], 1_000)).allowed).toBe(true);
    expect((await limiter.consume([key], 1_001)).allowed).toBe(true);
    expect(await limiter.consume([key], 1_002)).toMatchObject({ allowed: false, retryAfterMs: MINUTE - 2 });
    await redis.start();
    await limiter.close();
  });

  it('answers while Redis hangs, once the command timeout passes', async () => {
    const limiter = createRedisLimiter({
      url: redis.url,
      prefix: 'hang:',
      whenUnreachable: 'refuse',
      commandTimeoutMs: 200,
      logger: silentLogger,
    });
    await limiter.ready();
    const admin = await sharedClientOf(redis.url);
    // DEBUG SLEEP holds the server, as a stalled Redis would.
    const sleeping = admin.sendCommand(['DEBUG', 'SLEEP', '1']);
    const started = Date.now();
    expect(await limiter.consume([key], 0)).toMatchObject({ allowed: false, unavailable: true });
    expect(Date.now() - started).toBeLessThan(900);
    await sleeping;
    await admin.close();
    await limiter.close();
  });

  it('never reaches a Redis that is not there at start, and still answers', async () => {
    const port = redis.port;
    await redis.stop();
    const limiter = createRedisLimiter({
      url: `redis://127.0.0.1:${port}`,
      whenUnreachable: 'refuse',
      logger: silentLogger,
    });
    expect(await limiter.consume([key], 0)).toMatchObject({ allowed: false, unavailable: true });
    await limiter.close();
    await redis.start();
  });
});

async function sharedClientOf(url: string) {
  const { createClient } = await import('@redis/client');
  const admin = createClient({ url });
  admin.on('error', () => {});
  await admin.connect();
  return admin;
}

describe('createRedisLimiter on a Redis Cluster node', () => {
  let node: PrivateRedis;
  let cluster: Awaited<ReturnType<typeof sharedClientOf>>;
  beforeAll(async () => {
    // A one-node cluster that owns every slot: scripts are still refused keys of several slots.
    node = await startPrivateRedis(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf']);
    cluster = await sharedClientOf(node.url);
    await cluster.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', '0', '16383']);
    const deadline = Date.now() + 5_000;
    while (!String(await cluster.sendCommand(['CLUSTER', 'INFO'])).includes('cluster_state:ok')) {
      if (Date.now() > deadline) throw new Error('the cluster did not come up');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  afterAll(async () => {
    await cluster.close();
    await node.close();
  });

  it('keeps a key, its project and its account on one slot, so one script decides for all three', async () => {
    const limiter = createRedisLimiter({ client: cluster, logger: silentLogger });
    const group = 'account:acct_1';
    const scopes = [
      scope('key:key_1', 2, MINUTE, group),
      scope('project:proj_1', 5, MINUTE, group),
      scope('account:acct_1', 9, MINUTE, group),
    ];
    expect((await limiter.consume(scopes, 0)).allowed).toBe(true);
    expect((await limiter.consume(scopes, 0)).allowed).toBe(true);
    expect(await limiter.consume(scopes, 0)).toMatchObject({
      allowed: false,
      scopes: [{ remaining: 0 }, { remaining: 3 }, { remaining: 7 }],
    });
    const slots = new Set<unknown>();
    for (const name of ['key:key_1', 'project:proj_1', 'account:acct_1']) {
      slots.add(await cluster.sendCommand(['CLUSTER', 'KEYSLOT', `tidings:limit:{${group}}:${name}`]));
    }
    expect(slots.size).toBe(1);
    // Without a shared group the same scopes lie on several slots, and Redis refuses the script.
    const ungrouped = scopes.map(({ group: _, ...rest }) => rest);
    await expect(limiter.consume(ungrouped, 0)).rejects.toThrow(/CROSSSLOT|slot/i);
    await limiter.close();
  });
});
