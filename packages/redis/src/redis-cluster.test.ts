import { createClient } from '@redis/client';
import { type Hub, type HubMessage, type Limiter, type LimitScope, silentLogger } from '@tidings/core';
import { runHubConformance, runLimiterConformance, until } from '@tidings/core/testing';
import {
  type PrivateRedisCluster,
  startPrivateRedisCluster,
  uniquePrefix,
} from '@tidings/test-support/redis-fixtures.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  clusterCommandClient,
  connectRedisCluster,
  type OwnedRedisCluster,
  parseClusterNodes,
} from './redis-client.js';
import { createRedisHub, type RedisHub } from './redis-hub.js';
import { createRedisLimiter } from './redis-limiter.js';

// A private three-master cluster of this file's own, started once and stopped at the end.
let cluster: PrivateRedisCluster;
let shared: OwnedRedisCluster;
const prefix = uniquePrefix('cluster');
let runs = 0;

beforeAll(async () => {
  cluster = await startPrivateRedisCluster();
  shared = connectRedisCluster(cluster.nodes, { name: 'tidings-test-limiter', logger: silentLogger });
  await shared.ready;
}, 60_000);
afterAll(async () => {
  await shared?.close();
  await cluster?.close();
});

async function clusterHubs(count: number): Promise<RedisHub[]> {
  const channel = `${prefix}hub${runs++}`;
  const hubs = Array.from({ length: count }, () =>
    createRedisHub({ cluster: cluster.nodes, channel, logger: silentLogger }),
  );
  await Promise.all(hubs.map((hub) => hub.ready()));
  return hubs;
}

/** Kills the hub's sharded subscribing connections on every master, found by their name. */
async function killSubscriptions(hub: Hub): Promise<void> {
  const { instanceId } = hub as RedisHub;
  let killed = 0;
  for (const node of cluster.nodes) {
    const admin = createClient({ url: `redis://${node}` });
    admin.on('error', () => {});
    await admin.connect();
    try {
      const list = (await admin.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub'])) as string;
      for (const line of list.split('\n')) {
        if (!line.includes(` name=tidings-hub:${instanceId} `)) continue;
        const id = line.match(/\bid=(\d+)/)?.[1];
        if (id) killed += Number(await admin.sendCommand(['CLIENT', 'KILL', 'ID', id]));
      }
    } finally {
      await admin.close();
    }
  }
  expect(killed).toBeGreaterThan(0);
}

// First in the file: the cluster clients of later cases rediscover the topology after their
// failovers with commands of node-redis's own, which keep its timer.
describe('a cluster connection', () => {
  it('sends commands without a timer of node-redis’s own for each', async () => {
    const timeouts = vi.spyOn(AbortSignal, 'timeout');
    try {
      // Commands sent to the node of their key's slot: a redirection would make the client
      // rediscover the topology, with commands of its own.
      const key = `${prefix}timer`;
      expect(await shared.cluster.sendCommand(key, false, ['SET', key, 'x', 'PX', '60000'])).toBe('OK');
      expect(await shared.cluster.sendCommand(key, true, ['GET', key])).toBe('x');
      expect(await clusterCommandClient(shared.cluster).sendCommand(['PING'])).toBe('PONG');
      expect(timeouts).not.toHaveBeenCalled();
    } finally {
      timeouts.mockRestore();
    }
  });
});

runHubConformance(
  'redis cluster (sharded pub/sub), three instances',
  async () => {
    const [a, b, c] = await clusterHubs(3);
    return { hubs: [a!, b!, c!] };
  },
  { interrupt: killSubscriptions, timeoutMs: 4_000 },
);

/**
 * The scopes of one consume must lie on one slot of a cluster: Tidings groups a key with its
 * project and account, and a per-IP scope is alone. The suite's scopes have no group, so each run
 * puts its scopes in one of its own (a run of its own, on whichever master serves that slot).
 */
function grouped(limiter: Limiter, group: string): Limiter {
  return {
    consume: (scopes: readonly LimitScope[], now: number) =>
      limiter.consume(
        scopes.map((scope) => (scope.group === undefined ? { ...scope, group } : scope)),
        now,
      ),
    close: () => limiter.close(),
  };
}

runLimiterConformance(
  'redis cluster (the caller’s clock)',
  () => {
    const run = runs++;
    return grouped(
      createRedisLimiter({
        client: clusterCommandClient(shared.cluster),
        prefix: `${prefix}limit${run}:`,
        clock: 'caller',
        logger: silentLogger,
      }),
      `run${run}`,
    );
  },
  { runsFactor: 0.25 },
);

describe('the Redis hub and limiter on a cluster', () => {
  it('spreads the browsers’ channels over the masters, each SSUBSCRIBEd on the node of its slot', async () => {
    const [a, b] = await clusterHubs(2);
    const ids = Array.from({ length: 30 }, (_, i) => `brw_spread_${i}`);
    await Promise.all(ids.map((id) => b!.follow(id)));
    const perNode: number[] = [];
    for (const node of cluster.nodes) {
      const admin = createClient({ url: `redis://${node}` });
      await admin.connect();
      const channels = (await admin.sendCommand(['PUBSUB', 'SHARDCHANNELS', `${prefix}*`])) as string[];
      perNode.push(channels.filter((name) => name.includes(':browser:brw_spread_')).length);
      await admin.close();
    }
    expect(perNode.reduce((sum, n) => sum + n, 0)).toBe(30);
    expect(perNode.filter((n) => n > 0).length).toBeGreaterThan(1);
    const seen: string[] = [];
    b!.subscribe((message: HubMessage) => {
      if (message.type === 'close-browser') seen.push(message.browserId);
    });
    await a!.publish(ids.map((browserId) => ({ type: 'close-browser' as const, browserId })));
    await until(() => seen.length === 30, { what: 'a message on every channel' });
    expect([...seen].sort()).toEqual([...ids].sort());
    await a!.close();
    await b!.close();
  });

  it('connects a limiter to the cluster from its nodes, and counts on the node of each key’s slot', async () => {
    const limiter = createRedisLimiter({
      cluster: cluster.nodes.join(','),
      prefix: `${prefix}own${runs++}:`,
      clock: 'caller',
      logger: silentLogger,
    });
    await limiter.ready();
    const scopes = (account: string) => [
      { name: 'key', id: `key:${account}`, limit: 2, windowMs: 60_000, group: `account:${account}` },
      { name: 'account', id: `account:${account}`, limit: 10, windowMs: 60_000, group: `account:${account}` },
    ];
    const decisions = [];
    for (const account of ['a1', 'a2', 'a3']) {
      for (let i = 0; i < 3; i++) decisions.push((await limiter.consume(scopes(account), 1_000 + i)).allowed);
    }
    expect(decisions).toEqual([true, true, false, true, true, false, true, true, false]);
    await limiter.close();
  });

  it('reads --redis-cluster lists', () => {
    expect(parseClusterNodes('10.0.0.1:7000, 10.0.0.2:7001')).toEqual([
      'redis://10.0.0.1:7000',
      'redis://10.0.0.2:7001',
    ]);
    expect(parseClusterNodes(['rediss://h:7000'])).toEqual(['rediss://h:7000']);
    expect(() => parseClusterNodes('')).toThrow(/at least one/);
    expect(() => parseClusterNodes('host')).toThrow(/host:port/);
  });
});
