import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { until } from '@tidings/core/testing';
import Database from 'better-sqlite3';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrations } from './migrations.js';
import { createSqliteStore } from './sqlite-store.js';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(here, '../../..');
// The bundle is CommonJS, so NODE_PATH lets it find better-sqlite3 from the temporary directory.
const env = { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') };

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tidings-sqlite-jobs-'));
  // As in multi-process.test.ts: the worker runs in plain Node, bundled from the sources.
  buildSync({
    entryPoints: [join(here, 'test-support/jobs-worker.ts')],
    outfile: join(dir, 'worker.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: ['better-sqlite3'],
    alias: {
      '@tidings/core/store': join(here, 'test-support/core-runtime.ts'),
      '@tidings/core': join(here, 'test-support/core-runtime.ts'),
    },
    logLevel: 'silent',
  });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function seedFile(path: string) {
  const store = createSqliteStore({ path });
  const now = Date.now();
  await store.createAccount({ id: 'acct_jobs', email: 'a@example.com', verified: true, now });
  await store.createProject({ id: 'proj_jobs', accountId: 'acct_jobs', name: 'P', now, maxProjects: 1 });
  await store.registerBrowser({ id: 'brw_jobs', projectId: 'proj_jobs', recipient: 'r', secretHash: 'h', now });
  return store;
}

/**
 * Runs the worker with `args` until its output matches `pattern`, then kills it with SIGKILL, as
 * a crash right after that moment; the match.
 */
async function killAfter(args: string[], pattern: RegExp, what: string): Promise<RegExpExecArray | null> {
  const child = spawn(process.execPath, [join(dir, 'worker.cjs'), ...args], { env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const line = await until(() => pattern.exec(output), { what, timeoutMs: 15_000 });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return line;
}

describe('jobs on a SQLite file', () => {
  it('adds the jobs table to a file of the previous schema, keeping its data', async () => {
    const path = join(dir, 'previous.db');
    const raw = new Database(path);
    migrate(raw, migrations.slice(0, 9));
    raw.close();
    await (await seedFile(path)).close();
    const store = createSqliteStore({ path });
    try {
      expect(await store.getProject('proj_jobs')).toMatchObject({ name: 'P' });
      expect(await store.findBrowser('brw_jobs')).not.toBeNull();
      const [job] = await store.enqueueJobs({
        jobs: [{ kind: 'webhook', key: 'k', projectId: 'proj_jobs', payload: 1 }],
        now: Date.now(),
      });
      expect(await store.listJobs({ projectId: 'proj_jobs', limit: 5 })).toEqual([job]);
    } finally {
      await store.close();
    }
  });

  it('a job enqueued by a send is there after the process is killed -9 right after the send resolved', async () => {
    const path = join(dir, 'killed.db');
    await (await seedFile(path)).close();
    const line = await killAfter(['send', path, 'proj_jobs', 'r'], /^sent (\S+)$/m, 'the send to resolve');

    const store = createSqliteStore({ path });
    try {
      const notificationId = line?.[1] ?? '';
      expect(notificationId).toMatch(/^ntf_killed_/);
      expect(await store.getNotification({ projectId: 'proj_jobs', id: notificationId })).not.toBeNull();
      const jobs = await store.listJobs({ projectId: 'proj_jobs', limit: 10 });
      expect(jobs).toEqual([
        expect.objectContaining({
          kind: 'webhook',
          key: `endpoint-1:${notificationId}`,
          status: 'pending',
          payload: { notification: notificationId },
        }),
      ]);
      const claimed = await store.claimJobs({
        kinds: ['webhook'],
        limit: 5,
        now: Date.now(),
        leaseMs: 1000,
        owner: 'after',
      });
      expect(claimed.map((job) => job.id)).toEqual([jobs[0]!.id]);
    } finally {
      await store.close();
    }
  });

  it('jobs completed and failed together are done and failed after the process is killed -9 right after', async () => {
    const path = join(dir, 'finished.db');
    const seeded = await seedFile(path);
    const now = Date.now();
    await seeded.enqueueJobs({
      jobs: Array.from({ length: 10 }, (_, i) => ({
        kind: 'webhook',
        key: `endpoint-1:${i}`,
        projectId: 'proj_jobs',
        payload: { n: i },
      })),
      now,
    });
    await seeded.close();
    const line = await killAfter(['finish', path, 'killed'], /^finished (\S+)$/m, 'the jobs to finish');

    const ids = line?.[1]?.split(',') ?? [];
    expect(ids).toHaveLength(10);
    const store = createSqliteStore({ path });
    try {
      const jobs = await store.listJobs({ projectId: 'proj_jobs', limit: 20 });
      const statusOf = new Map(jobs.map((job) => [job.id, job.status]));
      expect(ids.map((id) => statusOf.get(id))).toEqual(ids.map((_, i) => (i % 2 === 0 ? 'done' : 'failed')));
    } finally {
      await store.close();
    }
  });

  it('commits the completions, retries and failures asked for together in one transaction', async () => {
    const path = join(dir, 'grouped.db');
    // No checkpoint thread, so that the WAL only grows while the test reads it.
    const store = createSqliteStore({ path, checkpointIntervalMs: 0 });
    try {
      const now = Date.now();
      await store.createAccount({ id: 'acct_jobs', email: 'a@example.com', verified: true, now });
      await store.createProject({ id: 'proj_jobs', accountId: 'acct_jobs', name: 'P', now, maxProjects: 1 });
      await store.enqueueJobs({
        jobs: Array.from({ length: 30 }, (_, i) => ({
          kind: 'webhook',
          key: `k${i}`,
          projectId: 'proj_jobs',
          payload: {},
        })),
        now,
      });
      const jobs = await store.claimJobs({ kinds: ['webhook'], limit: 30, now, leaseMs: 60_000, owner: 'o' });
      expect(jobs).toHaveLength(30);
      const walBytes = () => statSync(`${path}-wal`).size;
      const before = walBytes();
      const kept = await Promise.all(
        jobs.map((job, i) =>
          i % 3 === 0
            ? store.completeJob({ id: job.id, owner: 'o', now, keepUntil: now + 60_000 })
            : i % 3 === 1
              ? store.retryJob({ id: job.id, owner: 'o', runAt: now + 1000, error: 'again' })
              : store.failJob({ id: job.id, owner: 'o', error: 'no', now, keepUntil: now + 60_000 }),
        ),
      );
      expect(kept.every(Boolean)).toBe(true);
      // One commit writes each page it changed once: a few pages, where a commit per call
      // would have written the jobs' page 30 times.
      const pageSize = 4096 + 24;
      expect((walBytes() - before) / pageSize).toBeLessThanOrEqual(6);
      const statuses = (await store.listJobs({ projectId: 'proj_jobs', limit: 40 })).map((job) => job.status);
      expect(statuses.filter((status) => status === 'done')).toHaveLength(10);
      expect(statuses.filter((status) => status === 'pending')).toHaveLength(10);
      expect(statuses.filter((status) => status === 'failed')).toHaveLength(10);
    } finally {
      await store.close();
    }
  });

  it('a claim asked for in the turn of an outcome shares its transaction and sees it', async () => {
    const path = join(dir, 'claim-after-outcome.db');
    const store = await seedFile(path);
    try {
      const now = Date.now();
      await store.enqueueJobs({
        jobs: [0, 1].map((i) => ({ kind: 'webhook', key: 'endpoint-1', projectId: 'proj_jobs', payload: { i } })),
        now,
      });
      const [first] = await store.claimJobs({ kinds: ['webhook'], limit: 2, now, leaseMs: 60_000, owner: 'o' });
      expect(first?.payload).toEqual({ i: 0 });
      // The second job of the key waits for the first; asked for in one turn, the claim comes
      // after the completion in the same transaction.
      const [completed, claimed] = await Promise.all([
        store.completeJob({ id: first!.id, owner: 'o', now, keepUntil: now + 60_000 }),
        store.claimJobs({ kinds: ['webhook'], limit: 2, now, leaseMs: 60_000, owner: 'o' }),
      ]);
      expect(completed).toBe(true);
      expect(claimed.map((job) => job.payload)).toEqual([{ i: 1 }]);
    } finally {
      await store.close();
    }
  });

  it('several processes claiming from one file take each job once and finish them all', async () => {
    const path = join(dir, 'shared.db');
    const store = await seedFile(path);
    const enqueued = await store.enqueueJobs({
      jobs: Array.from({ length: 90 }, (_, i) => ({
        kind: 'webhook',
        key: `endpoint-${i % 15}`,
        projectId: 'proj_jobs',
        payload: { i },
      })),
      now: Date.now(),
    });
    await store.close();
    const startAt = String(Date.now() + 1500);
    const outputs = await Promise.all(
      ['p1', 'p2', 'p3'].map((owner) =>
        run(process.execPath, [join(dir, 'worker.cjs'), 'claim', path, owner, startAt], { env }),
      ),
    );
    const claimed = outputs.map(({ stdout }) => JSON.parse(stdout) as string[]);
    const all = claimed.flat();
    expect(all.length).toBe(90);
    expect(new Set(all).size).toBe(90);
    expect(new Set(all)).toEqual(new Set(enqueued.map((job) => job.id)));

    const check = createSqliteStore({ path });
    try {
      const done = await check.listJobs({ projectId: 'proj_jobs', limit: 100, status: 'done' });
      expect(done).toHaveLength(90);
      expect(done.every((job) => job.attempts === 1)).toBe(true);
    } finally {
      await check.close();
    }
  });
});
