// An application of the repository's own (an example, the README's embedding example) run as a
// process of its own on a free port, against a PostgreSQL database of the test's own.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { until } from '@tidings/core/testing';
import pg from 'pg';
import { testDatabaseUrl } from './services.js';

/** A port nothing listens on now, for an app that listens on `PORT`. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * A database of its own on the test PostgreSQL, with its URL, a pool on it, and `drop()`, which
 * ends the pool and drops the database, whatever is still connected.
 */
export async function privateDatabase(label: string) {
  const name = `tidings_${label}_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Pool({ connectionString: testDatabaseUrl, max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  // DROP DATABASE … WITH (FORCE) ends whatever connection is still open: not an error here.
  pool.on('error', () => {});
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export interface AppProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`. */
  base: string;
  /** What it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves with its exit code and signal. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  /** Kills it with SIGKILL if it still runs. */
  kill(): void;
}

/** Starts `node file` with `env` and `PORT`, and resolves once `GET /` answers. */
export async function startApp(file: string, env: Record<string, string>): Promise<AppProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [file], {
    env: { ...process.env, ...env, PORT: String(port), NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const base = `http://127.0.0.1:${port}`;
  const app: AppProcess = {
    child,
    base,
    output: () => output,
    exited,
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  try {
    await until(
      () =>
        child.exitCode === null &&
        fetch(`${base}/`).then(
          (answer) => answer.ok,
          () => false,
        ),
      { what: `${file} to listen`, timeoutMs: 20_000 },
    );
  } catch (error) {
    app.kill();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return app;
}
