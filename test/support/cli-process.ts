import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI: these tests run it as a user does, as a process. */
export const binPath = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(binPath)) throw new Error(`${binPath} is missing: run \`npm run build\` first`);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `tidings ...args` to completion. */
export function runTidings(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], { env: { ...process.env, TIDINGS_DB: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => {
      stdout += data;
    });
    child.stderr.on('data', (data: Buffer) => {
      stderr += data;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a `--json` command that must succeed, and returns its parsed output. */
export async function tidingsJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const result = await runTidings([...args, '--json']);
  if (result.code !== 0)
    throw new Error(`tidings ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** A temporary directory, removed by the returned function. */
export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'tidings-cli-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A `tidings serve` process, once it printed its `listening on` line. */
export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  /** Everything printed on stdout so far. */
  stdout: () => string;
  stderr: () => string;
  /** Resolves with stdout once it matches `pattern`. */
  waitForStdout: (pattern: RegExp) => Promise<string>;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
}

/** Starts `tidings serve ...args` and waits for `listening on`. */
export function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [binPath, 'serve', ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitForStdout = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(stdout)) return;
        child.stdout.off('data', check);
        resolve(stdout);
      };
      child.stdout.on('data', check);
      exited.then(() => reject(new Error(`tidings serve exited before printing ${pattern}:\n${stdout}${stderr}`)));
      check();
    });
  child.stdout.on('data', (data: Buffer) => {
    stdout += data;
  });
  child.stderr.on('data', (data: Buffer) => {
    stderr += data;
  });
  return waitForStdout(/^listening on http:\/\/\S+$/m).then((out) => ({
    child,
    url: /^listening on (http:\/\/\S+)$/m.exec(out)![1]!,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStdout,
    exited,
  }));
}

/** A SQLite file and a config in a temporary directory, and the servers started on them. */
export interface ServedFile {
  db: string;
  config: string;
  /** Starts `tidings serve` on the file with the config, on a free port. */
  serve(): Promise<ServeProcess>;
  /** Kills every server started that still runs (SIGKILL), waits for each, and removes the directory. */
  close(): Promise<void>;
}

/** Writes `config` next to a new database file, for `tidings serve` processes started by the test. */
export async function servedFile(config: unknown): Promise<ServedFile> {
  const temp = await tempDir();
  const db = join(temp.dir, 'tidings.db');
  const configPath = join(temp.dir, 'config.json');
  await writeFile(configPath, JSON.stringify(config));
  const servers: ServeProcess[] = [];
  return {
    db,
    config: configPath,
    async serve() {
      const server = await startServe(['--db', db, '--port', '0', '--config', configPath]);
      servers.push(server);
      return server;
    },
    async close() {
      for (const server of servers) {
        if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
        await server.exited;
      }
      await temp.remove();
    },
  };
}

/** Creates a verified account (of `email`, one per database) and a project in it through the CLI. */
export async function createProjectWithCli(
  db: string,
  name = 'P',
  email = 'a@example.com',
): Promise<{ accountId: string; projectId: string }> {
  const account = await tidingsJson<{ id: string }>(['account', 'create', '--email', email, '--verified', '--db', db]);
  const project = await tidingsJson<{ id: string }>([
    'project',
    'create',
    '--account',
    account.id,
    '--name',
    name,
    '--db',
    db,
  ]);
  return { accountId: account.id, projectId: project.id };
}

/** Creates an API key through the CLI: the only answer that holds the full key. */
export function createKeyWithCli(
  db: string,
  projectId: string,
  mode: 'live' | 'test',
): Promise<{ id: string; key: string }> {
  return tidingsJson<{ id: string; key: string }>([
    'key',
    'create',
    '--project',
    projectId,
    '--mode',
    mode,
    '--db',
    db,
  ]);
}

/** A verified account, a project and one live and one test key, through the CLI. */
export async function createProjectWithKeys(
  db: string,
): Promise<{ projectId: string; liveKey: string; testKey: string }> {
  const { projectId } = await createProjectWithCli(db);
  const liveKey = (await createKeyWithCli(db, projectId, 'live')).key;
  const testKey = (await createKeyWithCli(db, projectId, 'test')).key;
  return { projectId, liveKey, testKey };
}
