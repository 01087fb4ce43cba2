import { createJobRunner, createTidings, JobError, silentLogger } from '@tidings/core';
import { seedBrowser, seedProject, sendCreated, until } from '@tidings/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite-store.js';

/** The core's job runner on this store, with real time: what a server embedding both does. */
describe('a job runner on the SQLite store', () => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it('runs the jobs of a send as soon as the send resolved, without waiting for a poll, and retries one', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    closing.push(() => store.close());
    const project = await seedProject(store, Date.now());
    await seedBrowser(store, project.id, 'user-1', Date.now());
    const runs: string[] = [];
    const runner = createJobRunner({
      store,
      pollMs: 60_000,
      backoff: { baseMs: 1, capMs: 1 },
      kinds: {
        webhook: (job) => {
          runs.push(`${job.key}#${job.attempts}`);
          if (job.key === 'flaky' && job.attempts === 1) throw new JobError('HTTP 503', { retryAfterMs: 0 });
        },
      },
    });
    runner.start();
    closing.push(() => runner.stop());
    const now = Date.now();
    await sendCreated(store, {
      projectId: project.id,
      recipient: 'user-1',
      now,
      jobs: () => [
        { kind: 'webhook', key: 'steady', projectId: project.id, payload: null },
        { kind: 'webhook', key: 'flaky', projectId: project.id, payload: null },
      ],
    });
    const done = await until(() => store.listJobs({ projectId: project.id, limit: 10, status: 'done' }), {
      accept: (jobs) => jobs.length === 2,
      what: 'both jobs done',
    });
    expect(runs.sort()).toEqual(['flaky#1', 'flaky#2', 'steady#1']);
    expect(done.find((job) => job.key === 'flaky')).toMatchObject({ attempts: 2, lastError: 'JobError: HTTP 503' });
  });

  it('runs in an instance given jobs, whose close() waits for the job in flight', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    closing.push(() => store.close());
    const project = await seedProject(store, Date.now());
    let release: () => void = () => {};
    const started: string[] = [];
    const finished: string[] = [];
    const tidings = createTidings({
      store,
      logger: silentLogger,
      sweepIntervalMs: 0,
      jobs: {
        pollMs: 60_000,
        kinds: {
          slow: async (job) => {
            started.push(job.key);
            await new Promise<void>((resolve) => {
              release = resolve;
            });
            finished.push(job.key);
          },
        },
      },
    });
    await store.enqueueJobs({
      jobs: [{ kind: 'slow', key: 'one', projectId: project.id, payload: null }],
      now: Date.now(),
    });
    await until(() => started, { accept: (keys) => keys.length === 1, what: 'the job started' });
    const closed = tidings.close();
    let isClosed = false;
    void closed.then(() => {
      isClosed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isClosed).toBe(false);
    release();
    await closed;
    expect(finished).toEqual(['one']);
    expect(await store.listJobs({ projectId: project.id, limit: 10, status: 'done' })).toHaveLength(1);
  });

  it('refuses jobs whose kinds are not handlers', () => {
    const store = createSqliteStore({ path: ':memory:' });
    closing.push(() => store.close());
    expect(() => createTidings({ store, jobs: { kinds: { slow: 'no' as never } } })).toThrow(/jobs.kinds.slow/);
  });
});
