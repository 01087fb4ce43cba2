import { assertBuilt } from '@tidings/test-support/cli-process.js';
import type { PrivateRedisCluster } from '@tidings/test-support/redis-fixtures.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from './cluster.js';
import { type FollowedStream, followStream } from './follow-stream.js';

/**
 * Three `tidings serve` instances on one PostgreSQL schema and a Redis Cluster of three masters
 * with a replica each (`--redis-cluster`), under steady sends while one master hands over to its
 * replica (`CLUSTER FAILOVER`), another is killed, and then a shard is lost with all its nodes: every
 * acknowledged send reaches every stream of its recipient, through the sharded pub/sub or, for
 * what it dropped, the store's catch-up.
 */
const WORKERS = 4;
const RECIPIENTS_PER_WORKER = 6;
const SEND_EVERY_MS = 400;

let cluster: Cluster;
let redis: PrivateRedisCluster;
const followed: FollowedStream[] = [];

beforeAll(async () => {
  assertBuilt();
  cluster = await startCluster(3, {}, { redisCluster: { replicas: 1 } });
  redis = cluster.redisCluster!;
}, 180_000);

afterAll(async () => {
  for (const stream of followed) stream.stop();
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** An account, project and live key of one sender: the limits (60 a minute per key) leave room for its sends. */
async function newSenderKey(worker: number): Promise<string> {
  const account = await cluster.cli<{ id: string }>([
    'account',
    'create',
    '--email',
    `sender${worker}@example.com`,
    '--verified',
  ]);
  const project = await cluster.cli<{ id: string }>([
    'project',
    'create',
    '--account',
    account.id,
    '--name',
    'failover',
  ]);
  return (await cluster.cli<{ key: string }>(['key', 'create', '--project', project.id, '--mode', 'live'])).key;
}

async function follow(base: string, key: string, recipient: string): Promise<FollowedStream> {
  const response = await fetch(`${base}/v1/connect-tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient }),
  });
  expect(response.status).toBe(201);
  const { token } = await response.json();
  const stream = followStream(`${base}/v1/connect/${token}`);
  followed.push(stream);
  await stream.until(() => stream.open, 'the stream to open');
  return stream;
}

describe('three instances on a Redis Cluster', () => {
  it('loses no acknowledged send across a master failover, a killed master and a lost shard', async () => {
    const keys: string[] = [];
    for (let worker = 0; worker < WORKERS; worker++) keys.push(await newSenderKey(worker));
    // Each recipient's browser is held by one instance, round robin, so that every instance holds
    // streams and their browser channels fall on every shard.
    const streams = new Map<string, FollowedStream>();
    let index = 0;
    for (let worker = 0; worker < WORKERS; worker++) {
      for (let r = 0; r < RECIPIENTS_PER_WORKER; r++) {
        const instance = cluster.instances[index++ % cluster.instances.length]!;
        streams.set(`${worker}:r${r}`, await follow(instance.url, keys[worker]!, `r${r}`));
      }
    }

    type Phase = 'before' | 'failover' | 'after' | 'shard lost';
    let phase: Phase = 'before';
    let sending = true;
    const acknowledged: { worker: number; recipient: string; id: string; phase: Phase }[] = [];
    const refusals: string[] = [];
    const sender = async (worker: number) => {
      for (let n = 0; sending; n++) {
        const recipient = `r${n % RECIPIENTS_PER_WORKER}`;
        const idempotencyKey = `failover-${worker}-${n}`;
        const instance = cluster.instances[(worker + n) % cluster.instances.length]!;
        // Retried with the same key until acknowledged: an answer other than 201 while a shard
        // is down (the limiter's Redis unreachable) is allowed, a lost 201 is not.
        for (let tries = 0; ; tries++) {
          const response = await fetch(`${instance.url}/v1/notifications`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${keys[worker]}`,
              'Content-Type': 'application/json',
              'Idempotency-Key': idempotencyKey,
            },
            body: JSON.stringify({ recipient, title: idempotencyKey }),
          }).catch((error: unknown) => String(error));
          if (typeof response !== 'string' && response.status === 201) {
            acknowledged.push({ worker, recipient, id: (await response.json()).id, phase });
            break;
          }
          refusals.push(typeof response === 'string' ? response : `${response.status} ${await response.text()}`);
          expect(tries, refusals.slice(-5).join('\n')).toBeLessThan(150);
          await sleep(200);
        }
        await sleep(SEND_EVERY_MS);
      }
    };
    const senders = Promise.all(keys.map((_, worker) => sender(worker)));

    await sleep(3000);
    // A graceful handover: a replica takes its master's slots; the old master becomes its replica.
    const seed = Number(cluster.redisCluster!.nodes[0]!.split(':')[1]);
    const [first, second] = redis.masters(seed);
    const promoted = redis.replicasOf(first!)[0]!;
    phase = 'failover';
    redis.cli(promoted, ['CLUSTER', 'FAILOVER']);
    await until(() => redis.masters(promoted).includes(promoted), 'the replica to take over', 20_000);
    await sleep(2000);
    // A crash: the second master is killed; its replica is promoted once the node timeout passes.
    const orphan = redis.replicasOf(second!)[0]!;
    await redis.kill(second!);
    await until(() => redis.masters(orphan).includes(orphan), "the killed master's replica to take over", 30_000);
    await redis.waitUntilOk();
    await sleep(500);
    phase = 'after';
    await sleep(3000);
    // A shard lost for good: the first master's slots have no node left. The cluster refuses every
    // command until it is back; sends go on, on the store, and streams catch up from it.
    await redis.kill(promoted);
    await redis.kill(first!);
    phase = 'shard lost';
    await sleep(4000);
    sending = false;
    await senders;

    const count = (wanted: Phase) => acknowledged.filter((send) => send.phase === wanted).length;
    expect(count('before')).toBeGreaterThan(0);
    expect(count('failover')).toBeGreaterThan(0);
    expect(count('after')).toBeGreaterThan(0);
    expect(count('shard lost')).toBeGreaterThan(0);
    for (const [name, stream] of streams) {
      const [worker, recipient] = name.split(':');
      const ids = acknowledged
        .filter((send) => String(send.worker) === worker && send.recipient === recipient)
        .map((send) => send.id);
      await stream.until(
        () => ids.every((id) => stream.notifications.has(id)),
        `every acknowledged send to ${name}`,
        30_000,
      );
    }
  }, 180_000);
});
