import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ServeProcess, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import {
  type PrivateRedisCluster,
  startPrivateRedis,
  startPrivateRedisCluster,
} from '@tidings/test-support/redis-fixtures.js';
import pg from 'pg';

/**
 * A deployment as docs/deploy.md describes it, on loopback: one PostgreSQL schema of its own on
 * the shared server, a private `redis-server`, N `tidings serve` instances, and Debian's nginx in
 * front of them with the repository's deploy/nginx/tidings-proxy.conf.
 */
export interface Cluster {
  /** The nginx front: what browsers and clients use. */
  url: string;
  /** The `--db` every instance and CLI command uses. */
  db: string;
  redisPort: number;
  instances: ServeProcess[];
  /** Runs a CLI command on the cluster's database and returns its JSON answer. */
  cli<T = Record<string, unknown>>(args: string[]): Promise<T>;
  /** Runs a command on the private Redis (redis-cli; on a Redis Cluster, on its first node). */
  redis(args: string[]): Promise<string>;
  /** The private Redis Cluster, when the deployment runs on one. */
  redisCluster: PrivateRedisCluster | null;
  stop(): Promise<void>;
}

const databaseUrl = process.env.TIDINGS_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const proxyConf = fileURLToPath(new URL('../../deploy/nginx/tidings-proxy.conf', import.meta.url));

/** A free TCP port on loopback (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args);
    let out = '';
    child.stdout.on('data', (data: Buffer) => {
      out += data;
    });
    child.stderr.on('data', (data: Buffer) => {
      out += data;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')}: ${out}`)),
    );
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not come up`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('close', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}

/**
 * Starts the whole deployment; `config` is the instances' Tidings options (a JSON config file),
 * `serveArgs` more flags of every `tidings serve`. With `redisCluster`, the instances share a
 * private Redis Cluster of three masters, each with that many replicas, given to them with
 * `--redis-cluster`, instead of one redis-server.
 */
export async function startCluster(
  size: number,
  config: Record<string, unknown>,
  options: { redisCluster?: { replicas: number }; serveArgs?: string[] } = {},
): Promise<Cluster> {
  const temp = await tempDir();
  const schema = `tidings_deploy_${randomBytes(6).toString('hex')}`;
  const db = `${databaseUrl}?schema=${schema}`;
  const children: ChildProcess[] = [];
  const instances: ServeProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [
    async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
    () => temp.remove(),
  ];
  const stop = async () => {
    for (const instance of instances) await stopChild(instance.child);
    for (const child of children.reverse()) await stopChild(child);
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  };

  try {
    let redisCluster: PrivateRedisCluster | null = null;
    let redisArgs: string[];
    let redisPort: number;
    if (options.redisCluster) {
      const started = await startPrivateRedisCluster(options.redisCluster);
      redisCluster = started;
      cleanups.push(() => started.close());
      redisArgs = ['--redis-cluster', started.nodes.join(',')];
      redisPort = Number(started.nodes[0]?.split(':')[1]);
    } else {
      const privateRedis = await startPrivateRedis();
      cleanups.push(() => privateRedis.close());
      redisArgs = ['--redis', privateRedis.url];
      redisPort = privateRedis.port;
    }
    const redisCli = (args: string[]) => run('redis-cli', ['-p', String(redisPort), ...args]);

    await tidingsJson(['migrate', '--db', db]);
    const nginxPort = await freePort();
    const url = `http://127.0.0.1:${nginxPort}`;
    const configFile = join(temp.dir, 'tidings.json');
    await writeFile(configFile, JSON.stringify({ publicUrl: url, ...config }));
    for (let index = 0; index < size; index++) {
      instances.push(
        await startServe([
          '--db',
          db,
          ...redisArgs,
          '--trust-proxy',
          '1',
          '--port',
          '0',
          '--config',
          configFile,
          ...(options.serveArgs ?? []),
        ]),
      );
    }

    const upstreams = instances
      .map((instance) => `server ${new URL(instance.url).host} max_fails=1 fail_timeout=2s;`)
      .join('\n      ');
    const nginxConf = join(temp.dir, 'nginx.conf');
    await writeFile(
      nginxConf,
      `daemon off;
master_process on;
worker_processes 1;
user root;
pid ${temp.dir}/nginx.pid;
error_log ${temp.dir}/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${temp.dir}/body;
  proxy_temp_path ${temp.dir}/proxy;
  fastcgi_temp_path ${temp.dir}/fastcgi;
  uwsgi_temp_path ${temp.dir}/uwsgi;
  scgi_temp_path ${temp.dir}/scgi;
  upstream tidings {
      ${upstreams}
      keepalive 32;
  }
  server {
    listen 127.0.0.1:${nginxPort};
    include ${proxyConf};
  }
}
`,
    );
    const nginx = spawn('nginx', ['-c', nginxConf, '-p', temp.dir]);
    children.push(nginx);
    let nginxOutput = '';
    nginx.stderr.on('data', (data: Buffer) => {
      nginxOutput += data;
    });
    await waitFor(async () => (await fetch(`${url}/healthz`)).ok, `nginx (${nginxOutput})`);

    return {
      url,
      db,
      redisPort,
      instances,
      cli: <T>(args: string[]) => tidingsJson<T>([...args, '--db', db]),
      redis: redisCli,
      redisCluster,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
