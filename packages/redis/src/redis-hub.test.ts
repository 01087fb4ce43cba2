import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { createClient } from '@redis/client';
import { type Hub, type HubMessage, type LogFields, silentLogger } from '@tidings/core';
import { quietPeriod, runHubConformance, until } from '@tidings/core/testing';
import {
  type PrivateRedis,
  SHARED_REDIS_URL,
  sharedClient,
  startPrivateRedis,
  uniquePrefix,
} from '@tidings/test-support/redis-fixtures.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisHub, type RedisHub, type RedisHubRouting, redisHubChannel } from './redis-hub.js';

const prefix = uniquePrefix('hub');
let channels = 0;

async function hubsOn(
  url: string,
  count: number,
  channel = `${prefix}${channels++}`,
  routing?: RedisHubRouting,
): Promise<RedisHub[]> {
  const hubs = Array.from({ length: count }, () => createRedisHub({ url, channel, routing, logger: silentLogger }));
  await Promise.all(hubs.map((hub) => hub.ready()));
  return hubs;
}

/** Kills a hub's subscribing connection on the shared Redis, found by its name: never anyone else's. */
async function killSubscriber(hub: Hub): Promise<void> {
  const { instanceId } = hub as RedisHub;
  const admin = await sharedClient();
  try {
    const list = (await admin.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub'])) as string;
    const line = list.split('\n').find((entry) => entry.includes(` name=tidings-hub-sub:${instanceId} `));
    const id = line?.match(/\bid=(\d+)/)?.[1];
    if (!id) throw new Error(`no subscriber connection of ${instanceId}`);
    expect(await admin.sendCommand(['CLIENT', 'KILL', 'ID', id])).toBe(1);
  } finally {
    await admin.close();
  }
}

for (const routing of ['browser', { shards: 4 }, 'broadcast'] satisfies RedisHubRouting[]) {
  runHubConformance(
    `redis, three instances, routing ${JSON.stringify(routing)}`,
    async () => {
      const [a, b, c] = await hubsOn(SHARED_REDIS_URL, 3, undefined, routing);
      return { hubs: [a!, b!, c!] };
    },
    { interrupt: killSubscriber },
  );
}

const closeBrowser = (browserId: string): HubMessage => ({ type: 'close-browser', browserId });

/**
 * Follows the browsers on a hub and records what its subscriber receives, and each time it was
 * told it may have missed some: the browsers named, or `'all'`.
 */
async function record(hub: RedisHub, browserIds: readonly string[]) {
  await Promise.all(browserIds.map((browserId) => hub.follow(browserId)));
  const received: string[] = [];
  const reports: Array<readonly string[] | 'all'> = [];
  hub.subscribe(
    (message) => {
      if (message.type === 'close-browser') received.push(message.browserId);
    },
    (browserIds) => {
      reports.push(browserIds ?? 'all');
    },
  );
  return {
    received,
    reports,
    get missed() {
      return reports.length;
    },
  };
}

describe('createRedisHub on the shared Redis', () => {
  let admin: Awaited<ReturnType<typeof sharedClient>>;
  beforeAll(async () => {
    admin = await sharedClient();
  });
  afterAll(async () => {
    await admin.close();
  });

  it('reports a killed subscription as possibly missed messages, and carries messages again', async () => {
    const [a, b] = await hubsOn(SHARED_REDIS_URL, 2);
    const onB = await record(b!, ['brw_before', 'brw_after']);
    await a!.publish([closeBrowser('brw_before')]);
    await until(() => onB.received.length === 1);
    await killSubscriber(b!);
    await until(() => onB.missed === 1);
    await a!.publish([closeBrowser('brw_after')]);
    await until(() => onB.received.length === 2);
    expect(onB.received).toEqual(['brw_before', 'brw_after']);
    await a!.close();
    await b!.close();
  });

  it('delivers its own messages to its own subscribers once, in process', async () => {
    const [a] = await hubsOn(SHARED_REDIS_URL, 1);
    const onA = await record(a!, ['brw_1', 'brw_2']);
    const publishing = a!.publish([closeBrowser('brw_1'), closeBrowser('brw_2')]);
    // At once, before publish returns (a send answers without waiting for it): no round trip
    // through Redis for this instance's own streams.
    expect(onA.received).toEqual(['brw_1', 'brw_2']);
    await publishing;
    await quietPeriod(100, 'its own message coming back through Redis');
    expect(onA.received).toEqual(['brw_1', 'brw_2']);
    await a!.close();
  });

  it('broadcast: carries the publishes of one turn in one PUBLISH, in order, at most 64 messages each', async () => {
    const channel = `${prefix}grouped`;
    const [a, b] = await hubsOn(SHARED_REDIS_URL, 2, channel, 'broadcast');
    const ids = Array.from({ length: 70 }, (_, i) => `brw_${i}`);
    const onB = await record(b!, ids);
    const raw: Array<{ messages: HubMessage[] }> = [];
    const listener = admin.duplicate();
    await listener.connect();
    await listener.subscribe(channel, (message) => raw.push(JSON.parse(message)));
    await Promise.all([a!.publish(ids.slice(0, 3).map(closeBrowser)), a!.publish(ids.slice(3).map(closeBrowser))]);
    await until(() => onB.received.length === 70);
    expect(onB.received).toEqual(ids);
    expect(raw.map((envelope) => envelope.messages.length)).toEqual([64, 6]);
    await listener.close();
    await a!.close();
    await b!.close();
  });

  it('by browser: one PUBLISH per browser channel and turn, at most 64 messages each, a project’s on the deployment’s channel', async () => {
    const channel = `${prefix}routed`;
    const [a, b] = await hubsOn(SHARED_REDIS_URL, 2, channel);
    const onB = await record(b!, ['brw_x', 'brw_y']);
    const raw: Array<{ channel: string; count: number }> = [];
    const listener = admin.duplicate();
    await listener.connect();
    await listener.pSubscribe(`${channel}*`, (message, from) =>
      raw.push({ channel: from, count: JSON.parse(message).messages.length }),
    );
    const xs = Array.from({ length: 70 }, () => closeBrowser('brw_x'));
    await Promise.all([
      a!.publish([...xs.slice(0, 3), closeBrowser('brw_y')]),
      a!.publish([...xs.slice(3), closeBrowser('brw_y'), { type: 'close-project', projectId: 'proj_1' }]),
    ]);
    await until(() => onB.received.length === 72);
    await until(() => raw.length === 4);
    expect(raw.sort((p, q) => p.channel.localeCompare(q.channel) || q.count - p.count)).toEqual([
      { channel, count: 1 },
      { channel: `${channel}:browser:brw_x`, count: 64 },
      { channel: `${channel}:browser:brw_x`, count: 6 },
      { channel: `${channel}:browser:brw_y`, count: 2 },
    ]);
    await listener.close();
    await a!.close();
    await b!.close();
  });

  it('subscribes to a browser’s channel on its first follow, once, and leaves it after its last unfollow', async () => {
    const channel = `${prefix}numsub`;
    const [a] = await hubsOn(SHARED_REDIS_URL, 1, channel);
    const browserChannel = `${channel}:browser:brw_counted`;
    const subscribers = async () => {
      const reply = (await admin.sendCommand(['PUBSUB', 'NUMSUB', browserChannel])) as [string, number];
      return Number(reply[1]);
    };
    expect(await subscribers()).toBe(0);
    await a!.follow('brw_counted');
    // Resolved once Redis confirmed it: no waiting here.
    expect(await subscribers()).toBe(1);
    await a!.follow('brw_counted');
    expect(a!.stats().channels).toBe(2);
    a!.unfollow('brw_counted');
    expect(await subscribers()).toBe(1);
    a!.unfollow('brw_counted');
    await until(async () => (await subscribers()) === 0, { what: 'the unsubscribe' });
    expect(a!.stats().channels).toBe(1);
    await a!.close();
  });

  it('by shards: as many subscriptions as shards at most, however many browsers it follows', async () => {
    const channel = `${prefix}sharded`;
    const [a, b] = await hubsOn(SHARED_REDIS_URL, 2, channel, { shards: 4 });
    const ids = Array.from({ length: 100 }, (_, i) => `brw_sharded_${i}`);
    const onB = await record(b!, ids.slice(0, 50));
    expect(b!.stats().channels).toBeLessThanOrEqual(5);
    expect(redisHubChannel(channel, { shards: 4 }, 'brw_sharded_0')).toMatch(new RegExp(`^${channel}:shard:[0-3]$`));
    await a!.publish(ids.map(closeBrowser));
    await a!.publish([{ type: 'close-project', projectId: 'proj_marker' }]);
    await until(() => onB.received.length === 50);
    await quietPeriod(100, 'a message of a browser it does not follow');
    // Order is kept per browser, not across shards.
    expect([...onB.received].sort()).toEqual(ids.slice(0, 50).sort());
    // It read the other browsers of its shards, and dropped them.
    expect(b!.stats().received).toBeGreaterThanOrEqual(2);
    await a!.close();
    await b!.close();
  });

  it('ignores what is not one of its messages on the channel', async () => {
    const channel = `${prefix}foreign`;
    const [a] = await hubsOn(SHARED_REDIS_URL, 1, channel);
    const onA = await record(a!, ['brw_ok']);
    await admin.publish(channel, 'not json');
    await admin.publish(channel, JSON.stringify({ from: 'someone', messages: 'no list' }));
    await admin.publish(channel, JSON.stringify({ from: 'other', messages: [closeBrowser('brw_ok')] }));
    await until(() => onA.received.length === 1);
    expect(onA.received).toEqual(['brw_ok']);
    await a!.close();
  });
});

/**
 * A TCP proxy to the shared Redis that can hold back what the hub's subscribing connection sends
 * (recognised by the name it gives itself), as a slow network would: its SUBSCRIBE then reaches
 * Redis only when released, while the publishing connection goes straight through.
 */
async function subscriberHoldingProxy(url = SHARED_REDIS_URL) {
  const target = new URL(url);
  let holding = false;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const subscribers = new Set<Socket>();
  const server = createServer((downstream) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    sockets.add(downstream).add(upstream);
    let subscriber = false;
    downstream.on('data', (chunk: Buffer) => {
      if (chunk.includes('tidings-hub-sub:')) {
        subscriber = true;
        subscribers.add(downstream);
      }
      if (subscriber && holding) held.push(() => upstream.write(chunk));
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => downstream.write(chunk));
    const end = () => {
      downstream.destroy();
      upstream.destroy();
    };
    downstream.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const write of held.splice(0)) write();
    },
    /** Breaks the subscribing connections, dropping what they held back. */
    dropSubscriber() {
      held.length = 0;
      for (const socket of subscribers) socket.destroy();
      subscribers.clear();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('createRedisHub following a browser', () => {
  it('refuses bad options at construction, before it connects', () => {
    expect(() => createRedisHub({})).toThrow(/url or a cluster/);
    expect(() => createRedisHub({ url: SHARED_REDIS_URL, cluster: '127.0.0.1:1' })).toThrow(/not both/);
    expect(() => createRedisHub({ url: SHARED_REDIS_URL, routing: { shards: 0 } })).toThrow(/shards/);
    expect(() => createRedisHub({ url: SHARED_REDIS_URL, routing: 'everyone' as 'browser' })).toThrow(/routing/);
    expect(() => createRedisHub({ url: SHARED_REDIS_URL, subscribeTimeoutMs: 0 })).toThrow(/subscribeTimeoutMs/);
  });

  it('resolves a follow only once Redis confirmed the subscription: what is published before is not promised', async () => {
    const proxy = await subscriberHoldingProxy();
    const channel = `${prefix}${channels++}`;
    const [a] = await hubsOn(SHARED_REDIS_URL, 1, channel);
    const b = createRedisHub({ url: proxy.url, channel, logger: silentLogger, subscribeTimeoutMs: 60_000 });
    await b.ready();
    const onB = await record(b, []);
    proxy.hold();
    let followed = false;
    const following = b.follow('brw_slow').then(() => {
      followed = true;
    });
    await a!.publish([closeBrowser('brw_slow')]);
    await quietPeriod(100, 'a follow that resolves before Redis confirmed it');
    expect(followed).toBe(false);
    proxy.release();
    await following;
    // Once it resolved, a publish reaches it.
    await a!.publish([closeBrowser('brw_slow')]);
    await until(() => onB.received.length === 1, { what: 'the publish after the follow' });
    await a!.close();
    await b.close();
    await proxy.close();
  });

  it('resolves a follow anyway after subscribeTimeoutMs when Redis does not answer', async () => {
    const proxy = await subscriberHoldingProxy();
    const b = createRedisHub({
      url: proxy.url,
      channel: `${prefix}${channels++}`,
      logger: silentLogger,
      subscribeTimeoutMs: 200,
    });
    await b.ready();
    proxy.hold();
    const started = Date.now();
    await b.follow('brw_unanswered');
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    proxy.release();
    await b.close();
    await proxy.close();
  });
});

describe('createRedisHub when Redis confirms a subscription late', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.close();
  });

  /** A hub whose follows give up waiting after 50 ms, recording each `onMissed` and when it came. */
  async function lateHub(routing?: RedisHubRouting) {
    const hub = createRedisHub({
      url: redis.url,
      channel: `${prefix}${channels++}`,
      routing,
      logger: silentLogger,
      subscribeTimeoutMs: 50,
    });
    await hub.ready();
    const missed: Array<{ at: number; browserIds: readonly string[] | undefined }> = [];
    hub.subscribe(
      () => {},
      (browserIds) => missed.push({ at: Date.now(), browserIds }),
    );
    return { hub, missed };
  }

  /** Holds every client's commands on the private Redis for `ms`, sent on a connection of its own. */
  async function pause(ms: number): Promise<{ endsAt: number; done: Promise<void> }> {
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.sendCommand(['CLIENT', 'PAUSE', String(ms), 'ALL']);
    return { endsAt: Date.now() + ms, done: admin.close().then(() => undefined) };
  }

  it('reports exactly the browser whose follow resolved before Redis confirmed its subscription', async () => {
    const { hub, missed } = await lateHub();
    await hub.follow('brw_in_time');
    const paused = await pause(1_000);
    await hub.follow('brw_late');
    const followedAt = Date.now();
    // Resolved by the timeout, while Redis still held the SUBSCRIBE: nothing reported yet.
    expect(followedAt).toBeLessThan(paused.endsAt - 300);
    expect(missed).toEqual([]);
    await until(() => missed.length > 0, { timeoutMs: 5_000, what: 'the late confirmation' });
    expect(missed.map((entry) => entry.browserIds)).toEqual([['brw_late']]);
    expect(missed[0]!.at).toBeGreaterThanOrEqual(paused.endsAt - 100);
    await quietPeriod(100, 'another report');
    expect(missed).toHaveLength(1);
    await paused.done;
    await hub.close();
  });

  it('does not report a follow that Redis confirmed in time', async () => {
    const { hub, missed } = await lateHub();
    await hub.follow('brw_prompt');
    await hub.follow('brw_prompt_too');
    await quietPeriod(150, 'a report of a follow confirmed in time');
    expect(missed).toEqual([]);
    await hub.close();
  });

  it('by shards: reports the browsers followed on a shard confirmed late, not those of a shard subscribed before', async () => {
    const routing = { shards: 4 };
    const { hub, missed } = await lateHub(routing);
    const shardOf = (browserId: string) => redisHubChannel('c', routing, browserId);
    const ids = Array.from({ length: 40 }, (_, i) => `brw_shard_${i}`);
    const first = ids[0]!;
    await hub.follow(first);
    const sameShard = ids.filter((id) => id !== first && shardOf(id) === shardOf(first));
    const otherShards = ids.filter((id) => shardOf(id) !== shardOf(first));
    expect(sameShard.length).toBeGreaterThan(0);
    expect(otherShards.length).toBeGreaterThan(0);
    const paused = await pause(1_000);
    await Promise.all([...sameShard, ...otherShards].map((id) => hub.follow(id)));
    expect(Date.now()).toBeLessThan(paused.endsAt - 300);
    await until(() => missed.length > 0, { timeoutMs: 5_000, what: 'the late confirmations' });
    await quietPeriod(100, 'another report');
    const reported = missed.flatMap((entry) => entry.browserIds ?? ['(every stream)']);
    expect(reported.sort()).toEqual([...otherShards].sort());
    await paused.done;
    await hub.close();
  });

  it('reports every stream once a subscription that failed after its follow resolved is back', async () => {
    const proxy = await subscriberHoldingProxy(redis.url);
    const channel = `${prefix}${channels++}`;
    const a = createRedisHub({ url: redis.url, channel, logger: silentLogger });
    const b = createRedisHub({ url: proxy.url, channel, logger: silentLogger, subscribeTimeoutMs: 50 });
    await Promise.all([a.ready(), b.ready()]);
    const onB = await record(b, []);
    const reports: Array<readonly string[] | undefined> = [];
    b.subscribe(
      () => {},
      (browserIds) => reports.push(browserIds),
    );
    proxy.hold();
    await b.follow('brw_failed');
    // The SUBSCRIBE never reached Redis: the connection breaks, and the subscription fails.
    proxy.dropSubscriber();
    proxy.release();
    await until(() => reports.includes(undefined), { timeoutMs: 10_000, what: 'the report after the break' });
    await until(
      async () => {
        await a.publish([closeBrowser('brw_failed')]);
        return onB.received.includes('brw_failed');
      },
      { timeoutMs: 10_000, what: 'a publish once the subscription is back' },
    );
    await a.close();
    await b.close();
    await proxy.close();
  });
});

describe('createRedisHub when Redis goes away', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.close();
  });

  it('resubscribes after Redis restarts, reports possibly missed messages, and carries messages again', async () => {
    const [a, b] = await hubsOn(redis.url, 2);
    const onB = await record(b!, ['brw_before', 'brw_lost', 'brw_after']);
    await a!.publish([closeBrowser('brw_before')]);
    await until(() => onB.received.length === 1);

    await redis.stop();
    // Publishing while Redis is down neither throws nor hangs: the store has what matters.
    const started = Date.now();
    await a!.publish([closeBrowser('brw_lost')]);
    expect(Date.now() - started).toBeLessThan(1_500);

    await redis.start();
    await until(() => onB.missed >= 1, { timeoutMs: 10_000 });
    await until(
      async () => {
        await a!.publish([closeBrowser('brw_after')]);
        return onB.received.includes('brw_after');
      },
      { timeoutMs: 10_000 },
    );
    expect(onB.received[0]).toBe('brw_before');
    expect(onB.received).not.toContain('brw_lost');
    await a!.close();
    await b!.close();
  });

  it('drops the publishes past 256 waiting for a stalled Redis, and carries messages again once it answers', async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (_: string, fields?: LogFields) => warnings.push(String(fields?.error)) };
    const channel = `${prefix}${channels++}`;
    const a = createRedisHub({ url: redis.url, channel, logger });
    const [b] = await hubsOn(redis.url, 1, channel);
    await a.ready();
    const onB = await record(b!, [...Array.from({ length: 300 }, (_, i) => `brw_stalled_${i}`), 'brw_after_stall']);
    const stall = createClient({ url: redis.url });
    await stall.connect();
    // Connected but not answering for 1.5 s: every PUBLISH waits.
    const sleeping = stall.sendCommand(['DEBUG', 'SLEEP', '1.5']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const publishes: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      publishes.push(a.publish([closeBrowser(`brw_stalled_${i}`)]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(warnings).toEqual(['256 publishes are waiting for redis']);
    await Promise.all(publishes);
    await sleeping;
    await stall.close();
    await until(
      async () => {
        await a.publish([closeBrowser('brw_after_stall')]);
        return onB.received.includes('brw_after_stall');
      },
      { timeoutMs: 10_000 },
    );
    // Those that went out before the cap arrive, in order; none of the dropped ones.
    const stalled = onB.received.filter((id) => id.startsWith('brw_stalled_'));
    expect(stalled.length).toBeLessThanOrEqual(256);
    expect(stalled).toEqual(stalled.map((_, i) => `brw_stalled_${i}`));
    await a.close();
    await b!.close();
  });

  it('names the browsers of the publishes it dropped to the instances that follow them, once Redis takes publishes', async () => {
    const channel = `${prefix}${channels++}`;
    const a = createRedisHub({ url: redis.url, channel, publishTimeoutMs: 200, logger: silentLogger });
    const [b, c] = await hubsOn(redis.url, 2, channel);
    await a.ready();
    const onB = await record(b!, ['brw_on_b']);
    const onC = await record(c!, ['brw_on_c']);
    const admin = createClient({ url: redis.url });
    await admin.connect();
    // Writes, PUBLISH among them, wait for a second: the publish times out and is dropped.
    await admin.sendCommand(['CLIENT', 'PAUSE', '1000', 'WRITE']);
    await a.publish([closeBrowser('brw_on_b'), closeBrowser('brw_nowhere')]);
    await until(() => onB.reports.length > 0, { timeoutMs: 5_000 });
    await quietPeriod(700, 'a notice that timed out in the pause is published again');
    // Named to B, which follows it (again if a notice timed out too); C follows neither.
    expect(new Set(onB.reports.map((report) => JSON.stringify(report)))).toEqual(
      new Set([JSON.stringify(['brw_on_b'])]),
    );
    expect(onC.reports).toEqual([]);

    // A project's message concerns every instance: all of them catch every stream up.
    await admin.sendCommand(['CLIENT', 'PAUSE', '1000', 'WRITE']);
    await a.publish([{ type: 'close-project', projectId: 'prj_paused' }]);
    await until(() => onB.reports.includes('all') && onC.reports.includes('all'), { timeoutMs: 5_000 });
    await admin.close();
    await a.close();
    await b!.close();
    await c!.close();
  });

  it('reports every stream as possibly missing messages every outageReportMs while Redis is down, and not once it is back', async () => {
    const channel = `${prefix}${channels++}`;
    const b = createRedisHub({ url: redis.url, channel, outageReportMs: 300, logger: silentLogger });
    await b.ready();
    const onB = await record(b, ['brw_waiting']);
    await quietPeriod(700, 'a report while Redis is up');
    expect(onB.reports).toEqual([]);
    await redis.stop();
    await until(() => onB.reports.filter((report) => report === 'all').length >= 2, { timeoutMs: 5_000 });
    await redis.start();
    // Back once a publish of its own comes back to it through Redis: both connections are up
    // again (node-redis reconnects them each on its own backoff, so one may be late).
    await until(
      async () => {
        const before = b.stats().received;
        await b.publish([closeBrowser('brw_waiting')]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return b.stats().received > before;
      },
      { timeoutMs: 15_000, what: 'a publish of its own to come back through Redis' },
    );
    await quietPeriod(700, 'the reports of the outage to end');
    const settled = onB.reports.length;
    await quietPeriod(700, 'a report once Redis is back');
    expect(onB.reports.length).toBe(settled);
    await b.close();
  });

  it('still reaches its own subscribers while Redis is down', async () => {
    const [a] = await hubsOn(redis.url, 1);
    const onA = await record(a!, ['brw_local']);
    await redis.stop();
    await a!.publish([closeBrowser('brw_local')]);
    expect(onA.received).toEqual(['brw_local']);
    await redis.start();
    await a!.close();
  });
});
