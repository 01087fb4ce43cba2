import { createClient } from '@redis/client';
import { type HubMessage, type LogFields, silentLogger } from '@tidings/core';
import { quietPeriod, runHubConformance, until } from '@tidings/core/testing';
import {
  type PrivateRedis,
  SHARED_REDIS_URL,
  sharedClient,
  startPrivateRedis,
  uniquePrefix,
} from '@tidings/test-support/redis-fixtures.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisHub, type RedisHub } from './redis-hub.js';

const prefix = uniquePrefix('hub');
let channels = 0;

async function hubsOn(url: string, count: number, channel = `${prefix}${channels++}`): Promise<RedisHub[]> {
  const hubs = Array.from({ length: count }, () => createRedisHub({ url, channel, logger: silentLogger }));
  await Promise.all(hubs.map((hub) => hub.ready()));
  return hubs;
}

runHubConformance('redis, three instances', async () => {
  const [a, b, c] = await hubsOn(SHARED_REDIS_URL, 3);
  return { hubs: [a!, b!, c!] };
});

const closeBrowser = (browserId: string): HubMessage => ({ type: 'close-browser', browserId });

/** Records what a hub's subscriber receives, and how often it was told it may have missed some. */
function record(hub: RedisHub) {
  const received: string[] = [];
  let missed = 0;
  hub.subscribe(
    (message) => {
      if (message.type === 'close-browser') received.push(message.browserId);
    },
    () => {
      missed++;
    },
  );
  return {
    received,
    get missed() {
      return missed;
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

  /** Kills this hub's subscribing connection, found by its name: never anyone else's. */
  async function killSubscriber(hub: RedisHub): Promise<void> {
    const list = (await admin.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub'])) as string;
    const line = list.split('\n').find((entry) => entry.includes(` name=tidings-hub-sub:${hub.instanceId} `));
    const id = line?.match(/\bid=(\d+)/)?.[1];
    if (!id) throw new Error(`no subscriber connection of ${hub.instanceId}`);
    expect(await admin.sendCommand(['CLIENT', 'KILL', 'ID', id])).toBe(1);
  }

  it('reports a killed subscription as possibly missed messages, and carries messages again', async () => {
    const [a, b] = await hubsOn(SHARED_REDIS_URL, 2);
    const onB = record(b!);
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
    const onA = record(a!);
    const publishing = a!.publish([closeBrowser('brw_1'), closeBrowser('brw_2')]);
    // At once, before publish returns (a send answers without waiting for it): no round trip
    // through Redis for this instance's own streams.
    expect(onA.received).toEqual(['brw_1', 'brw_2']);
    await publishing;
    await quietPeriod(100, 'its own message coming back through Redis');
    expect(onA.received).toEqual(['brw_1', 'brw_2']);
    await a!.close();
  });

  it('carries the publishes of one turn in one PUBLISH, in order, at most 64 messages each', async () => {
    const channel = `${prefix}grouped`;
    const [a, b] = await hubsOn(SHARED_REDIS_URL, 2, channel);
    const onB = record(b!);
    const raw: Array<{ messages: HubMessage[] }> = [];
    const listener = admin.duplicate();
    await listener.connect();
    await listener.subscribe(channel, (message) => raw.push(JSON.parse(message)));
    const ids = Array.from({ length: 70 }, (_, i) => `brw_${i}`);
    await Promise.all([a!.publish(ids.slice(0, 3).map(closeBrowser)), a!.publish(ids.slice(3).map(closeBrowser))]);
    await until(() => onB.received.length === 70);
    expect(onB.received).toEqual(ids);
    expect(raw.map((envelope) => envelope.messages.length)).toEqual([64, 6]);
    await listener.close();
    await a!.close();
    await b!.close();
  });

  it('ignores what is not one of its messages on the channel', async () => {
    const channel = `${prefix}foreign`;
    const [a] = await hubsOn(SHARED_REDIS_URL, 1, channel);
    const onA = record(a!);
    await admin.publish(channel, 'not json');
    await admin.publish(channel, JSON.stringify({ from: 'someone', messages: 'no list' }));
    await admin.publish(channel, JSON.stringify({ from: 'other', messages: [closeBrowser('brw_ok')] }));
    await until(() => onA.received.length === 1);
    expect(onA.received).toEqual(['brw_ok']);
    await a!.close();
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
    const onB = record(b!);
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
    const onB = record(b!);
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

  it('still reaches its own subscribers while Redis is down', async () => {
    const [a] = await hubsOn(redis.url, 1);
    const onA = record(a!);
    await redis.stop();
    await a!.publish([closeBrowser('brw_local')]);
    expect(onA.received).toEqual(['brw_local']);
    await redis.start();
    await a!.close();
  });
});
