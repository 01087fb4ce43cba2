import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';

/** The Redis the tests share (never flushed: each run uses keys under a prefix of its own). */
export const SHARED_REDIS_URL = process.env.TIDINGS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A prefix no other run uses, e.g. `tidings-test:k3x9…:`. */
export function uniquePrefix(label: string): string {
  return `tidings-test:${label}:${randomBytes(6).toString('hex')}:`;
}

/** A connected client of the shared Redis, for the tests' own commands. */
export async function sharedClient() {
  const client = createClient({ url: SHARED_REDIS_URL, name: `tidings-test-${randomBytes(4).toString('hex')}` });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Deletes the keys under `prefix` (SCAN, never FLUSH: the server is shared). */
export async function deleteKeys(client: Awaited<ReturnType<typeof sharedClient>>, prefix: string): Promise<number> {
  let deleted = 0;
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
    if (keys.length > 0) deleted += await client.del(keys);
  }
  return deleted;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A redis-server of the test's own, on its own port, that the test may stop and start again. */
export interface PrivateRedis {
  url: string;
  port: number;
  start(): Promise<void>;
  /** Kills the server (SIGKILL: a crash, as far as clients can tell). */
  stop(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

/** Starts a private redis-server without persistence; `stop` and `start` keep its port. */
export async function startPrivateRedis(extraArgs: string[] = []): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tidings-redis-'));
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--enable-debug-command',
        'yes',
        ...extraArgs,
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 5_000;
    for (;;) {
      const probe = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
      probe.on('error', () => {});
      try {
        await probe.connect();
        await probe.ping();
        await probe.close();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  }

  async function stop(): Promise<void> {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis Cluster of the test's own: three masters, each with `replicas` replicas, on ports of its own. */
export interface PrivateRedisCluster {
  /** `host:port` of every node, as `--redis-cluster` takes them. */
  nodes: string[];
  /** Runs `redis-cli` against one node's port and returns what it printed. */
  cli(port: number, args: string[]): string;
  /** The ports of the nodes that are masters now, as `port` sees the cluster. */
  masters(port: number): number[];
  /** The ports of the replicas of the master on `masterPort`, as that master sees them. */
  replicasOf(masterPort: number): number[];
  /** Kills one node (SIGKILL: a crash, as far as the cluster and its clients can tell). */
  kill(port: number): Promise<void>;
  /** Polls until every live node reports `cluster_state:ok`. */
  waitUntilOk(): Promise<void>;
  /** Stops every node and removes their directory. */
  close(): Promise<void>;
}

/**
 * Starts `3 × (1 + replicas)` `redis-server --cluster-enabled yes` processes in a temp dir, joins
 * them with `redis-cli --cluster create`, and resolves once every node reports the cluster `ok`.
 */
export async function startPrivateRedisCluster(options: { replicas?: number } = {}): Promise<PrivateRedisCluster> {
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'tidings-redis-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  async function close(): Promise<void> {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  }
  try {
    for (let i = 0; i < 3 * (1 + replicas); i++) {
      const port = await freePort();
      const busPort = await freePort();
      ports.push(port);
      children.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--cluster-port',
            String(busPort),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(dir, `nodes-${port}.conf`),
            '--cluster-node-timeout',
            '2000',
            '--save',
            '',
            '--appendonly',
            'no',
            '--dir',
            dir,
            '--daemonize',
            'no',
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) await waitFor(port, async (probe) => (await probe.sendCommand(['PING'])) === 'PONG');
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    const killed = new Set<number>();
    const cli = (port: number, args: string[]) => {
      const result = spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', timeout: 10_000 });
      if (result.status !== 0) throw new Error(`redis-cli -p ${port} ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    // `CLUSTER NODES`: `<id> <ip:port@bus> <flags> <master id or -> …`, one node per line.
    const nodeLines = (port: number) =>
      cli(port, ['CLUSTER', 'NODES'])
        .trim()
        .split('\n')
        .map((line) => line.split(' '))
        .map(([id, address, flags, master]) => ({
          id: id ?? '',
          port: Number(address?.split('@')[0]?.split(':')[1]),
          flags: (flags ?? '').split(','),
          master: master ?? '-',
        }));
    const waitUntilOk = async () => {
      for (const port of ports) {
        if (killed.has(port)) continue;
        await waitFor(port, async (probe) =>
          /cluster_state:ok/.test(String(await probe.sendCommand(['CLUSTER', 'INFO']))),
        );
      }
    };
    await waitUntilOk();
    if (replicas > 0) {
      // Replicas report the cluster ok before they have synced: wait until each master has its own.
      for (const port of ports) {
        await waitFor(port, async () => {
          const nodes = nodeLines(port);
          return nodes.filter((node) => node.flags.includes('slave')).length === 3 * replicas;
        });
      }
    }
    return {
      nodes: ports.map((port) => `127.0.0.1:${port}`),
      cli,
      masters: (port) =>
        nodeLines(port)
          .filter((node) => node.flags.includes('master') && !node.flags.includes('fail'))
          .map((node) => node.port),
      replicasOf: (masterPort) => {
        const nodes = nodeLines(masterPort);
        const self = nodes.find((node) => node.flags.includes('myself'));
        return nodes.filter((node) => node.master === self?.id).map((node) => node.port);
      },
      async kill(port) {
        const child = children[ports.indexOf(port)];
        killed.add(port);
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        });
      },
      waitUntilOk,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Polls one node until `check` holds, for up to 15 s. */
async function waitFor(
  port: number,
  check: (probe: { sendCommand(args: string[]): Promise<unknown> }) => Promise<boolean>,
) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
    probe.on('error', () => {});
    try {
      await probe.connect();
      const ok = await check(probe);
      await probe.close();
      if (ok) return;
    } catch {
      try {
        probe.destroy();
      } catch {
        // never connected
      }
    }
    if (Date.now() > deadline) throw new Error(`redis cluster node on ${port} not ready`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
