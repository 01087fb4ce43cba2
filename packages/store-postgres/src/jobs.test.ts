import { newId, type Store } from '@tidings/core';
import type { ClaimedJob } from '@tidings/core/store';
import { seedBrowser, seedProject, send } from '@tidings/core/testing';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quoteIdentifier } from './db.js';
import { migrate, migrations } from './migrations.js';
import { createPostgresStore } from './postgres-store.js';
import { dropSchema, randomSchema, testDatabaseUrl } from './test-support/test-database.js';

const T0 = Date.UTC(2026, 0, 1, 12);

/** The job queue with several instances on one schema, as a deployment runs it. */
describe('PostgreSQL store: jobs claimed by several instances', () => {
  let schema: string;
  let stores: Store[];

  beforeEach(async () => {
    schema = randomSchema();
    stores = await Promise.all(
      Array.from({ length: 2 }, () =>
        createPostgresStore({ connectionString: testDatabaseUrl, schema, maxConnections: 4 }),
      ),
    );
  });
  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await dropSchema(schema);
  });

  it('adds the jobs table to a schema of the previous version, keeping its data', async () => {
    const previous = randomSchema();
    const pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 2 });
    try {
      expect(await migrate(pool, previous, migrations.slice(0, 5))).toEqual({ from: 0, to: 5 });
      const quoted = quoteIdentifier(previous);
      await pool.query(
        `INSERT INTO ${quoted}.accounts (id, email, verified, created_at) VALUES ('acct_old', 'a@example.com', true, 1)`,
      );
      const store = await createPostgresStore({ pool, schema: previous });
      expect(await store.getAccount('acct_old')).toMatchObject({ email: 'a@example.com' });
      const [job] = await store.enqueueJobs({
        jobs: [{ kind: 'webhook', key: 'k', projectId: 'p', payload: 1 }],
        now: T0,
      });
      expect(await store.listJobs({ projectId: 'p', limit: 5 })).toEqual([job]);
      await store.close();
    } finally {
      await pool.end();
      await dropSchema(previous);
    }
  });

  it('records sends of one turn with their jobs together, and a faulty jobs function fails its send alone', async () => {
    const [one] = stores as [Store, Store];
    const project = await seedProject(one);
    await seedBrowser(one, project.id, 'user-1');
    await seedBrowser(one, project.id, 'user-2');
    // A group that commits: every send with its jobs.
    const together = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        send(one, {
          projectId: project.id,
          recipient: 'user-1',
          now: T0 - 100 + i,
          idempotencyKey: i % 2 === 0 ? `first-${i}` : null,
          jobs: (created) => [
            { kind: 'push', key: `sub:${created.notification.id}`, projectId: project.id, payload: i },
          ],
        }),
      ),
    );
    const pushJobs = await one.listJobs({ projectId: project.id, kind: 'push', limit: 100 });
    expect(pushJobs.map((job) => job.key).sort()).toEqual(
      together
        .map((result) => (result.kind === 'created' ? `sub:${result.created.notification.id}` : result.kind))
        .sort(),
    );
    expect(pushJobs.map((job) => job.createdAt - (job.payload as number)).every((at) => at === T0 - 100)).toBe(true);
    const results = await Promise.allSettled(
      Array.from({ length: 24 }, (_, i) =>
        send(one, {
          projectId: project.id,
          recipient: i % 2 === 0 ? 'user-1' : 'user-2',
          now: T0 + i,
          idempotencyKey: i % 3 === 0 ? `key-${i}` : null,
          jobs:
            i === 7
              ? () => {
                  throw new Error('no jobs');
                }
              : (created) => [
                  {
                    kind: 'webhook',
                    key: `ep:${created.notification.id}`,
                    projectId: project.id,
                    payload: { i, attempts: created.attempts.length },
                  },
                ],
        }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(results.map((_, i) => (i === 7 ? 'rejected' : 'fulfilled')));
    const jobs = (await one.listJobs({ projectId: project.id, kind: 'webhook', limit: 100 })).reverse();
    const created = results.flatMap((result) =>
      result.status === 'fulfilled' && result.value.kind === 'created' ? [result.value.created.notification] : [],
    );
    expect(created).toHaveLength(23);
    expect(jobs.map((job) => job.key).sort()).toEqual(created.map((n) => `ep:${n.id}`).sort());
    for (const job of jobs) {
      const { i } = job.payload as { i: number };
      expect(job.createdAt).toBe(T0 + i);
      expect(job.payload).toEqual({ i, attempts: 1 });
    }
    const failedSend = await one.listNotifications({
      projectId: project.id,
      beforeId: null,
      limit: 100,
      recipient: null,
      mode: null,
    });
    expect(failedSend).toHaveLength(33);
  });

  it('never gives one job to two instances claiming at once, and keeps each key in order', async () => {
    const [one, two] = stores as [Store, Store];
    const projectId = newId('proj', T0);
    const KEYS = 12;
    const PER_KEY = 5;
    const enqueued = await one.enqueueJobs({
      jobs: Array.from({ length: KEYS * PER_KEY }, (_, i) => ({
        kind: 'webhook',
        key: `endpoint-${i % KEYS}`,
        projectId,
        payload: { i },
      })),
      now: T0,
    });
    const order = new Map(enqueued.map((job, i) => [job.id, i]));
    const claimedBy = new Map<string, string>();
    const doneByKey = new Map<string, number[]>();
    /** Claims and completes until nothing is left; several such loops run at once on both instances. */
    async function worker(store: Store, owner: string): Promise<void> {
      for (let idle = 0; idle < 3; ) {
        const jobs: ClaimedJob[] = await store.claimJobs({
          kinds: ['webhook'],
          limit: 3,
          now: T0,
          leaseMs: 60_000,
          owner,
        });
        if (jobs.length === 0) {
          idle++;
          continue;
        }
        idle = 0;
        for (const job of jobs) {
          expect(claimedBy.get(job.id), `job ${job.id} claimed twice`).toBeUndefined();
          claimedBy.set(job.id, owner);
          doneByKey.set(job.key, [...(doneByKey.get(job.key) ?? []), order.get(job.id)!]);
        }
        await Promise.all(
          jobs.map(async (job) =>
            expect(await store.completeJob({ id: job.id, owner, now: T0, keepUntil: T0 + 1000 })).toBe(true),
          ),
        );
      }
    }
    await Promise.all([worker(one, 'one-a'), worker(one, 'one-b'), worker(two, 'two-a'), worker(two, 'two-b')]);
    expect(claimedBy.size).toBe(KEYS * PER_KEY);
    expect(new Set(claimedBy.values()).size).toBeGreaterThan(1);
    for (const indexes of doneByKey.values()) expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    const left = await one.listJobs({ projectId, limit: 1000, status: 'pending' });
    expect(left).toEqual([]);
  });

  it('re-claims an expired lease on exactly one of two instances racing for it', async () => {
    const [one, two] = stores as [Store, Store];
    const projectId = newId('proj', T0);
    const jobs = await one.enqueueJobs({
      jobs: Array.from({ length: 20 }, (_, i) => ({ kind: 'push', key: `sub-${i}`, projectId, payload: null })),
      now: T0,
    });
    expect(await one.claimJobs({ kinds: ['push'], limit: 100, now: T0, leaseMs: 1000, owner: 'lost' })).toHaveLength(
      20,
    );
    const [a, b] = await Promise.all([
      one.claimJobs({ kinds: ['push'], limit: 100, now: T0 + 1000, leaseMs: 1000, owner: 'a' }),
      two.claimJobs({ kinds: ['push'], limit: 100, now: T0 + 1000, leaseMs: 1000, owner: 'b' }),
    ]);
    const ids = [...a, ...b].map((job) => job.id).sort();
    expect(ids).toEqual(jobs.map((job) => job.id).sort());
    expect([...a, ...b].every((job) => job.attempts === 2)).toBe(true);
  });

  it('hands out the jobs of one key one at a time, in their order, when instances enqueue them at once', async () => {
    const [one, two] = stores as [Store, Store];
    const projectId = newId('proj', T0);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? one : two).enqueueJobs({
          jobs: [{ kind: 'webhook', key: 'shared', projectId, payload: { i } }],
          now: T0,
        }),
      ),
    );
    // Whatever the interleaving, one job of the key at a time, and every one of them in the end.
    const seen: string[] = [];
    for (let round = 0; round < 20; round++) {
      const claimed = await (round % 2 === 0 ? one : two).claimJobs({
        kinds: ['webhook'],
        limit: 10,
        now: T0,
        leaseMs: 1000,
        owner: `w${round}`,
      });
      expect(claimed).toHaveLength(1);
      seen.push(claimed[0]!.id);
      await (round % 2 === 0 ? one : two).completeJob({
        id: claimed[0]!.id,
        owner: `w${round}`,
        now: T0,
        keepUntil: T0,
      });
    }
    const listed = (await one.listJobs({ projectId, limit: 100 })).reverse().map((job) => job.id);
    expect(seen).toEqual(listed);
  });
});

describe('PostgreSQL store: the outcomes of jobs finished in one turn', () => {
  let schema: string;
  let pool: pg.Pool;
  let store: Store;
  /** The names of the prepared statements the store ran on its pool, in order, without its schema's prefix. */
  let statements: string[];

  beforeEach(async () => {
    schema = randomSchema();
    pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 4 });
    statements = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    pool.query = ((config: unknown, ...rest: unknown[]) => {
      const name = (config as { name?: string } | null)?.name;
      if (typeof name === 'string') statements.push(name.replace(/^tidings_[0-9a-f]+_/, ''));
      return query(config, ...rest);
    }) as typeof pool.query;
    store = await createPostgresStore({ pool, schema });
  });
  afterEach(async () => {
    await store.close();
    await pool.end();
    await dropSchema(schema);
  });

  it('records them in one statement, each as it would alone, and only for a job its owner still holds', async () => {
    const projectId = newId('proj', T0);
    const jobs = await store.enqueueJobs({
      jobs: Array.from({ length: 6 }, (_, i) => ({ kind: 'webhook', key: `k-${i}`, projectId, payload: i })),
      now: T0,
    });
    const claimed = await store.claimJobs({ kinds: ['webhook'], limit: 10, now: T0, leaseMs: 60_000, owner: 'a' });
    expect(claimed).toHaveLength(6);
    const [done1, done2, retried, failed, stolen, twice] = jobs.map((job) => job.id) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    statements = [];
    const results = await Promise.all([
      store.completeJob({ id: done1, owner: 'a', now: T0 + 1, keepUntil: T0 + 1000 }),
      store.completeJob({ id: done2, owner: 'a', now: T0 + 2, keepUntil: T0 + 2000 }),
      store.retryJob({ id: retried, owner: 'a', runAt: T0 + 5000, error: 'HTTP 503' }),
      store.failJob({ id: failed, owner: 'a', error: 'HTTP 410', now: T0 + 4, keepUntil: T0 + 4000 }),
      // Not this owner's: left as it is.
      store.completeJob({ id: stolen, owner: 'b', now: T0 + 5, keepUntil: T0 + 5000 }),
      store.completeJob({ id: twice, owner: 'a', now: T0 + 6, keepUntil: T0 + 6000 }),
      // The same job again waits for the next run, and finds it finished.
      store.failJob({ id: twice, owner: 'a', error: 'late', now: T0 + 7, keepUntil: T0 + 7000 }),
    ]);
    expect(results).toEqual([true, true, true, true, false, true, false]);
    // Six outcomes in one statement; the seventh, alone in its run, in its own.
    expect(statements).toEqual(['settle_jobs', 'fail_job']);

    const byId = new Map((await store.listJobs({ projectId, limit: 10 })).map((job) => [job.id, job]));
    expect(byId.get(done1)).toMatchObject({
      status: 'done',
      finishedAt: T0 + 1,
      keepUntil: T0 + 1000,
      lastError: null,
    });
    expect(byId.get(done2)).toMatchObject({ status: 'done', finishedAt: T0 + 2, keepUntil: T0 + 2000 });
    expect(byId.get(retried)).toMatchObject({
      status: 'pending',
      runAt: T0 + 5000,
      lastError: 'HTTP 503',
      finishedAt: null,
      keepUntil: null,
      leaseUntil: null,
    });
    expect(byId.get(failed)).toMatchObject({
      status: 'failed',
      lastError: 'HTTP 410',
      finishedAt: T0 + 4,
      keepUntil: T0 + 4000,
      runAt: T0,
    });
    expect(byId.get(stolen)).toMatchObject({ status: 'running', leaseOwner: 'a', leaseUntil: T0 + 60_000 });
    expect(byId.get(twice)).toMatchObject({ status: 'done', finishedAt: T0 + 6, lastError: null });
  });
});
