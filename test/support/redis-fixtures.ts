import { type ChildProcess, spawn } from 'node:child_process';
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
