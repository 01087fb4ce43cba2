import { describe, expect, it } from 'vitest';
import type { JobRecord, NewJob } from '../ports/jobs.js';
import type {
  AccountStore,
  BrowserStore,
  DeliveryStore,
  JobStore,
  MaintenanceStore,
  NotificationStore,
  ProjectAdminStore,
} from '../ports/store.js';
import { DAY_MS, type GetStore, readBack, seedBrowser, seedProject, send, sendCreated, T0 } from './fixtures.js';
import { jobModelProperty } from './jobs-model.js';

const LEASE = 30_000;

function job(projectId: string, key: string, extra: Partial<NewJob> = {}): NewJob {
  return { kind: 'webhook', key, projectId, payload: { key, n: 1, nested: { ok: true } }, ...extra };
}

/** Every job of a project, oldest first. */
async function allJobs(
  store: AccountStore &
    BrowserStore &
    DeliveryStore &
    JobStore &
    MaintenanceStore &
    NotificationStore &
    ProjectAdminStore,
  projectId: string,
): Promise<JobRecord[]> {
  return (await store.listJobs({ projectId, limit: 1000 })).reverse();
}

/** The job queue: order and exclusivity per key, leases, retries, retention, and writes that enqueue. */
export function jobConformance(
  getStore: GetStore<
    AccountStore & BrowserStore & DeliveryStore & JobStore & MaintenanceStore & NotificationStore & ProjectAdminStore
  >,
): void {
  describe('jobs', () => {
    it('enqueues pending jobs, due at runAt or now, and lists them newest first', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const enqueued = await store.enqueueJobs({
        jobs: [job(project.id, 'k1'), job(project.id, 'k2', { runAt: T0 + 500, kind: 'push', payload: [1, 'two'] })],
        now: T0,
      });
      expect(enqueued).toHaveLength(2);
      expect(enqueued[0]).toEqual({
        id: expect.stringMatching(/^job_[0-9a-z]{26}$/),
        kind: 'webhook',
        key: 'k1',
        projectId: project.id,
        payload: { key: 'k1', n: 1, nested: { ok: true } },
        status: 'pending',
        attempts: 0,
        runAt: T0,
        createdAt: T0,
        finishedAt: null,
        lastError: null,
        leaseOwner: null,
        leaseUntil: null,
        keepUntil: null,
      });
      expect(enqueued[1]).toMatchObject({ kind: 'push', key: 'k2', runAt: T0 + 500, payload: [1, 'two'] });
      expect(await store.listJobs({ projectId: project.id, limit: 10 })).toEqual([...enqueued].reverse());
      expect(await store.listJobs({ projectId: project.id, limit: 10, kind: 'push' })).toEqual([enqueued[1]]);
      expect(await store.listJobs({ projectId: project.id, limit: 10, key: 'k1' })).toEqual([enqueued[0]]);
      expect(await store.listJobs({ projectId: project.id, limit: 1 })).toEqual([enqueued[1]]);
      expect(await store.listJobs({ projectId: project.id, limit: 10, before: enqueued[1]!.id })).toEqual([
        enqueued[0],
      ]);
      expect(await store.listJobs({ projectId: project.id, limit: 10, status: 'running' })).toEqual([]);
      expect(await store.listJobs({ projectId: 'proj_other', limit: 10 })).toEqual([]);
    });

    it('claims the oldest unfinished job of each key only, oldest first, one per key', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const [a1, a2, b1, c1] = await store.enqueueJobs({
        jobs: [job(project.id, 'a'), job(project.id, 'a'), job(project.id, 'b'), job(project.id, 'c')],
        now: T0,
      });
      const claimed = await store.claimJobs({ kinds: ['webhook'], limit: 10, now: T0, leaseMs: LEASE, owner: 'w1' });
      expect(claimed.map((j) => j.id)).toEqual([a1!.id, b1!.id, c1!.id]);
      expect(claimed[0]).toMatchObject({
        status: 'running',
        attempts: 1,
        leaseOwner: 'w1',
        leaseUntil: T0 + LEASE,
      });
      // a2 waits for a1, whatever the limit or the owner.
      expect(
        await store.claimJobs({ kinds: ['webhook'], limit: 10, now: T0 + 1, leaseMs: LEASE, owner: 'w2' }),
      ).toEqual([]);
      expect(await store.completeJob({ id: a1!.id, owner: 'w1', now: T0 + 2, keepUntil: T0 + DAY_MS })).toBe(true);
      const next = await store.claimJobs({ kinds: ['webhook'], limit: 10, now: T0 + 3, leaseMs: LEASE, owner: 'w2' });
      expect(next.map((j) => j.id)).toEqual([a2!.id]);
      const [done] = await store.listJobs({ projectId: project.id, limit: 1, key: 'a', status: 'done' });
      expect(done).toMatchObject({ id: a1!.id, status: 'done', finishedAt: T0 + 2, keepUntil: T0 + DAY_MS });
    });

    it('honours the limit oldest first, and claims only the kinds asked for', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const [x, , z] = await store.enqueueJobs({
        jobs: [job(project.id, 'x'), job(project.id, 'y', { kind: 'push' }), job(project.id, 'z')],
        now: T0,
      });
      const first = await store.claimJobs({ kinds: ['webhook'], limit: 1, now: T0, leaseMs: LEASE, owner: 'w' });
      expect(first.map((j) => j.id)).toEqual([x!.id]);
      const second = await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0, leaseMs: LEASE, owner: 'w' });
      expect(second.map((j) => j.id)).toEqual([z!.id]);
      const push = await store.claimJobs({ kinds: ['push', 'other'], limit: 5, now: T0, leaseMs: LEASE, owner: 'w' });
      expect(push.map((j) => j.kind)).toEqual(['push']);
      expect(await store.claimJobs({ kinds: [], limit: 5, now: T0, leaseMs: LEASE, owner: 'w' })).toEqual([]);
    });

    it('does not claim a job before its runAt, nor a later job of its key meanwhile', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const [later, after] = await store.enqueueJobs({
        jobs: [job(project.id, 'k', { runAt: T0 + 1000 }), job(project.id, 'k')],
        now: T0,
      });
      expect(
        await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0 + 999, leaseMs: LEASE, owner: 'w' }),
      ).toEqual([]);
      const claimed = await store.claimJobs({
        kinds: ['webhook'],
        limit: 5,
        now: T0 + 1000,
        leaseMs: LEASE,
        owner: 'w',
      });
      expect(claimed.map((j) => j.id)).toEqual([later!.id]);
      expect(after!.status).toBe('pending');
    });

    it('claims a running job again once its lease ended, and refuses the old owner', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const [only] = await store.enqueueJobs({ jobs: [job(project.id, 'k')], now: T0 });
      await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0, leaseMs: 1000, owner: 'w1' });
      expect(
        await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0 + 999, leaseMs: 1000, owner: 'w2' }),
      ).toEqual([]);
      const again = await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0 + 1000, leaseMs: 1000, owner: 'w2' });
      expect(again).toEqual([
        expect.objectContaining({
          id: only!.id,
          status: 'running',
          attempts: 2,
          leaseOwner: 'w2',
          leaseUntil: T0 + 2000,
        }),
      ]);
      expect(await store.completeJob({ id: only!.id, owner: 'w1', now: T0 + 1001, keepUntil: T0 + DAY_MS })).toBe(
        false,
      );
      expect(await store.retryJob({ id: only!.id, owner: 'w1', runAt: T0, error: 'late' })).toBe(false);
      expect(await store.failJob({ id: only!.id, owner: 'w1', error: 'late', now: T0, keepUntil: T0 })).toBe(false);
      expect((await allJobs(store, project.id))[0]).toMatchObject({ status: 'running', leaseOwner: 'w2' });
      expect(await store.completeJob({ id: only!.id, owner: 'w2', now: T0 + 1002, keepUntil: T0 + DAY_MS })).toBe(true);
      // Finished: no owner may change it again.
      expect(await store.completeJob({ id: only!.id, owner: 'w2', now: T0 + 1003, keepUntil: T0 + DAY_MS })).toBe(
        false,
      );
      expect(await store.retryJob({ id: only!.id, owner: 'w2', runAt: T0, error: 'x' })).toBe(false);
      expect(await store.completeJob({ id: 'job_unknown', owner: 'w2', now: T0, keepUntil: T0 })).toBe(false);
    });

    it('puts a retried job back to pending from its runAt, keeping its key blocked until then', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const [first, second] = await store.enqueueJobs({ jobs: [job(project.id, 'k'), job(project.id, 'k')], now: T0 });
      await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0, leaseMs: LEASE, owner: 'w' });
      expect(await store.retryJob({ id: first!.id, owner: 'w', runAt: T0 + 5000, error: 'HTTP 503' })).toBe(true);
      expect((await allJobs(store, project.id))[0]).toMatchObject({
        status: 'pending',
        runAt: T0 + 5000,
        lastError: 'HTTP 503',
        attempts: 1,
        leaseUntil: null,
      });
      expect(
        await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0 + 4999, leaseMs: LEASE, owner: 'w' }),
      ).toEqual([]);
      const again = await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0 + 5000, leaseMs: LEASE, owner: 'w' });
      expect(again.map((j) => [j.id, j.attempts, j.lastError])).toEqual([[first!.id, 2, 'HTTP 503']]);
      expect(
        await store.failJob({ id: first!.id, owner: 'w', error: 'gave up', now: T0 + 6000, keepUntil: T0 + 7000 }),
      ).toBe(true);
      expect((await allJobs(store, project.id))[0]).toMatchObject({
        status: 'failed',
        lastError: 'gave up',
        finishedAt: T0 + 6000,
        keepUntil: T0 + 7000,
      });
      // A failed job no longer holds its key.
      const next = await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0 + 6001, leaseMs: LEASE, owner: 'w' });
      expect(next.map((j) => j.id)).toEqual([second!.id]);
    });

    it('purges finished jobs from their keepUntil, and never unfinished ones', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const [done, failed, pending] = await store.enqueueJobs({
        jobs: [job(project.id, 'a'), job(project.id, 'b'), job(project.id, 'c', { runAt: T0 + DAY_MS * 10 })],
        now: T0,
      });
      await store.claimJobs({ kinds: ['webhook'], limit: 5, now: T0, leaseMs: LEASE, owner: 'w' });
      await store.completeJob({ id: done!.id, owner: 'w', now: T0, keepUntil: T0 + 100 });
      await store.failJob({ id: failed!.id, owner: 'w', error: 'no', now: T0, keepUntil: T0 + 200 });
      await store.purgeExpired({ now: T0 + 99 });
      expect((await allJobs(store, project.id)).map((j) => j.id)).toEqual([done!.id, failed!.id, pending!.id]);
      await store.purgeExpired({ now: T0 + 100 });
      expect((await allJobs(store, project.id)).map((j) => j.id)).toEqual([failed!.id, pending!.id]);
      await store.purgeExpired({ now: T0 + DAY_MS * 100 });
      expect((await allJobs(store, project.id)).map((j) => j.id)).toEqual([pending!.id]);
    });

    it('gives each job to one of many concurrent claims', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const jobs = Array.from({ length: 30 }, (_, i) => job(project.id, `k${i % 10}`));
      await store.enqueueJobs({ jobs, now: T0 });
      const seen: string[] = [];
      for (let round = 0; round < 3; round++) {
        const claims = await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            store.claimJobs({ kinds: ['webhook'], limit: 4, now: T0 + round, leaseMs: LEASE, owner: `w${i}` }),
          ),
        );
        const ids = claims.flat().map((j) => j.id);
        expect(ids).toHaveLength(10);
        expect(new Set(claims.flat().map((j) => j.key)).size).toBe(10);
        seen.push(...ids);
        for (const claimed of claims.flat()) {
          expect(
            await store.completeJob({
              id: claimed.id,
              owner: claimed.leaseOwner,
              now: T0 + round,
              keepUntil: T0 + DAY_MS,
            }),
          ).toBe(true);
        }
      }
      expect(new Set(seen).size).toBe(30);
    });

    it('tells onJobsEnqueued listeners the kinds enqueued, after the write', async () => {
      const store = getStore();
      const project = await seedProject(store);
      const heard: string[][] = [];
      const stop = store.onJobsEnqueued((kinds) => heard.push(kinds));
      await store.enqueueJobs({ jobs: [job(project.id, 'a'), job(project.id, 'b', { kind: 'push' })], now: T0 });
      expect(heard.map((kinds) => [...kinds].sort())).toEqual([['push', 'webhook']]);
      await seedBrowser(store, project.id, 'user-1');
      await sendCreated(store, { projectId: project.id, recipient: 'user-1', jobs: () => [job(project.id, 'c')] });
      expect(heard).toHaveLength(2);
      await sendCreated(store, { projectId: project.id, recipient: 'user-1' });
      stop();
      await store.enqueueJobs({ jobs: [job(project.id, 'd')], now: T0 });
      expect(heard).toHaveLength(2);
    });

    describe('in the transaction of the write that causes them', () => {
      it('a send enqueues exactly the jobs computed from what it recorded', async () => {
        const store = getStore();
        const project = await seedProject(store);
        const browser = await seedBrowser(store, project.id, 'user-1');
        const created = await sendCreated(store, {
          projectId: project.id,
          recipient: 'user-1',
          jobs: (result) =>
            result.attempts.map((attempt) =>
              job(project.id, `ep1:${result.notification.id}`, {
                payload: { notification: result.notification.id, attempt: attempt.id },
              }),
            ),
        });
        const jobs = await allJobs(store, project.id);
        expect(jobs.map((j) => j.payload)).toEqual([
          { notification: created.notification.id, attempt: created.attempts[0]!.id },
        ]);
        expect(jobs[0]).toMatchObject({ status: 'pending', createdAt: T0, runAt: T0 });
        expect(created.attempts[0]!.browserId).toBe(browser.id);
      });

      it('a send with an idempotency key enqueues its jobs once; a replay or a refused send none', async () => {
        const store = getStore();
        const project = await seedProject(store);
        await seedBrowser(store, project.id, 'user-1');
        let computed = 0;
        const jobs = () => {
          computed++;
          return [job(project.id, 'once')];
        };
        await sendCreated(store, { projectId: project.id, recipient: 'user-1', idempotencyKey: 'k-1', jobs });
        const replay = await send(store, { projectId: project.id, recipient: 'user-1', idempotencyKey: 'k-1', jobs });
        expect(replay.kind).toBe('replay');
        const refused = await send(store, { projectId: project.id, recipient: 'nobody', jobs });
        expect(refused.kind).toBe('no-connected-browser');
        expect((await allJobs(store, project.id)).map((j) => j.key)).toEqual(['once']);
        expect(computed).toBeGreaterThanOrEqual(1);
      });

      it('a send whose transaction fails leaves neither the notification nor its jobs', async () => {
        const store = getStore();
        const project = await seedProject(store);
        await seedBrowser(store, project.id, 'user-1');
        const first = await sendCreated(store, { projectId: project.id, recipient: 'user-1' });
        // Computing the jobs fails inside the transaction.
        await expect(
          send(store, {
            projectId: project.id,
            recipient: 'user-1',
            title: 'thrown',
            jobs: () => {
              throw new Error('no jobs');
            },
          }),
        ).rejects.toThrow('no jobs');
        // The database refuses the notification (its id is taken) after the jobs were computed;
        // a send of the same turn that succeeds keeps its own jobs.
        const [duplicate, fine] = await Promise.allSettled([
          send(store, {
            projectId: project.id,
            recipient: 'user-1',
            id: first.notification.id,
            jobs: () => [job(project.id, 'duplicate')],
          }),
          send(store, { projectId: project.id, recipient: 'user-1', jobs: () => [job(project.id, 'fine')] }),
        ]);
        expect(duplicate.status).toBe('rejected');
        expect(fine.status).toBe('fulfilled');
        expect((await allJobs(store, project.id)).map((j) => j.key)).toEqual(['fine']);
        const log = await store.listNotifications({
          projectId: project.id,
          beforeId: null,
          limit: 10,
          recipient: null,
          mode: null,
        });
        expect(log.map((n) => n.notification.title).sort()).toEqual(['Hello', 'Hello']);
        expect(await readBack(store, project.id, first.notification.id)).toEqual(first);
      });
    });

    it('follows the claim rules of a simple model over random sequences of operations', async () => {
      await jobModelProperty(getStore());
    });
  });
}
