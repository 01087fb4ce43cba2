import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClaimedJob, JobRecord, NewJob } from '../ports/jobs.js';
import { createJobWakeups } from '../ports/store/assemble.js';
import type { JobStore } from '../ports/store.js';
import { backoffDelay, createJobRunner, JobError, type JobRunner } from './job-runner.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const clock = { now: () => Date.now() };

/** The store's job queue role, in memory, with the claim rules of the port; and what was asked of it. */
function memoryJobs() {
  const jobs: JobRecord[] = [];
  const wakeups = createJobWakeups();
  const calls: { method: string; input: Record<string, unknown>; at: number }[] = [];
  let seq = 0;
  const finish = (id: string, owner: string, change: Partial<JobRecord>) => {
    const job = jobs.find((j) => j.id === id);
    if (job?.status !== 'running' || job.leaseOwner !== owner) return false;
    Object.assign(job, change, { leaseUntil: null });
    return true;
  };
  const store = {
    async enqueueJobs({ jobs: added, now }: { jobs: NewJob[]; now: number }) {
      const records = added.map(
        (job): JobRecord => ({
          id: `job_${++seq}`,
          kind: job.kind,
          key: job.key,
          projectId: job.projectId,
          payload: job.payload,
          status: 'pending',
          attempts: 0,
          runAt: job.runAt ?? now,
          createdAt: now,
          finishedAt: null,
          lastError: null,
          leaseOwner: null,
          leaseUntil: null,
          keepUntil: null,
        }),
      );
      jobs.push(...records);
      wakeups.notify([...new Set(added.map((job) => job.kind))]);
      return records;
    },
    async claimJobs(input: { kinds: string[]; limit: number; now: number; leaseMs: number; owner: string }) {
      calls.push({ method: 'claimJobs', input, at: Date.now() });
      const claimed: ClaimedJob[] = [];
      const unfinished = (job: JobRecord) => job.status === 'pending' || job.status === 'running';
      for (const [i, job] of jobs.entries()) {
        if (claimed.length >= input.limit) break;
        if (!input.kinds.includes(job.kind)) continue;
        const due =
          job.status === 'pending' ? job.runAt <= input.now : job.status === 'running' && job.leaseUntil! <= input.now;
        if (!due || jobs.slice(0, i).some((older) => older.key === job.key && unfinished(older))) continue;
        Object.assign(job, {
          status: 'running',
          attempts: job.attempts + 1,
          leaseOwner: input.owner,
          leaseUntil: input.now + input.leaseMs,
        });
        claimed.push({ ...job } as ClaimedJob);
      }
      return claimed;
    },
    async completeJob(input: { id: string; owner: string; now: number; keepUntil: number }) {
      calls.push({ method: 'completeJob', input, at: Date.now() });
      return finish(input.id, input.owner, { status: 'done', finishedAt: input.now, keepUntil: input.keepUntil });
    },
    async retryJob(input: { id: string; owner: string; runAt: number; error: string }) {
      calls.push({ method: 'retryJob', input, at: Date.now() });
      return finish(input.id, input.owner, { status: 'pending', runAt: input.runAt, lastError: input.error });
    },
    async failJob(input: { id: string; owner: string; error: string; now: number; keepUntil: number }) {
      calls.push({ method: 'failJob', input, at: Date.now() });
      return finish(input.id, input.owner, {
        status: 'failed',
        lastError: input.error,
        finishedAt: input.now,
        keepUntil: input.keepUntil,
      });
    },
    async listJobs(input: { projectId: string; limit: number }) {
      return jobs
        .filter((job) => job.projectId === input.projectId)
        .reverse()
        .slice(0, input.limit);
    },
    onJobsEnqueued: wakeups.subscribe,
  } satisfies JobStore;
  return { store, jobs, calls };
}

function newJob(key: string, kind = 'webhook'): NewJob {
  return { kind, key, projectId: 'proj_1', payload: { key } };
}

describe('createJobRunner', () => {
  let runner: JobRunner | null = null;
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(async () => {
    const stopping = runner?.stop();
    await vi.runOnlyPendingTimersAsync();
    await stopping;
    runner = null;
    vi.useRealTimers();
  });

  it('runs a due job and completes it, kept for keepFinishedMs', async () => {
    const { store, jobs } = memoryJobs();
    const seen: unknown[] = [];
    runner = createJobRunner({
      store,
      clock,
      owner: 'r1',
      keepFinishedMs: 5000,
      kinds: { webhook: (job) => void seen.push(job.payload) },
    });
    await store.enqueueJobs({ jobs: [newJob('a')], now: T0 });
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual([{ key: 'a' }]);
    expect(jobs[0]).toMatchObject({ status: 'done', attempts: 1, finishedAt: T0, keepUntil: T0 + 5000 });
  });

  it('wakes at once when a job is enqueued in this process, and polls otherwise', async () => {
    const { store, jobs, calls } = memoryJobs();
    runner = createJobRunner({ store, clock, pollMs: 60_000, kinds: { webhook: () => {} } });
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    const claimsBefore = calls.filter((call) => call.method === 'claimJobs').length;
    await store.enqueueJobs({ jobs: [newJob('a')], now: T0 });
    await vi.advanceTimersByTimeAsync(0);
    expect(jobs[0]!.status).toBe('done');
    // Woken, not polled: well within the poll interval, it claimed again.
    const claimsAfterWake = calls.filter((call) => call.method === 'claimJobs').length;
    expect(claimsAfterWake).toBeGreaterThan(claimsBefore);
    // A job of a kind this runner does not run does not wake it.
    await store.enqueueJobs({ jobs: [newJob('b', 'push')], now: T0 });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(calls.filter((call) => call.method === 'claimJobs')).toHaveLength(claimsAfterWake);
    // A job that becomes due later is found by the poll.
    await store.enqueueJobs({ jobs: [{ ...newJob('c'), runAt: Date.now() + 30_000 }], now: Date.now() });
    await vi.advanceTimersByTimeAsync(29_000);
    expect(jobs[2]!.status).toBe('pending');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(jobs[2]!.status).toBe('done');
  });

  it('retries a failing job on the backoff schedule with full jitter, then fails it', async () => {
    const { store, jobs, calls } = memoryJobs();
    let runs = 0;
    runner = createJobRunner({
      store,
      clock,
      pollMs: 1000,
      backoff: { baseMs: 1000, capMs: 5000, maxAttempts: 5, random: () => 0.5 },
      kinds: {
        webhook: () => {
          runs++;
          throw new Error(`HTTP 503 (${runs})`);
        },
      },
    });
    await store.enqueueJobs({ jobs: [newJob('a')], now: T0 });
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    const delays: number[] = [];
    for (let attempt = 1; attempt < 5; attempt++) {
      const retry = calls.filter((call) => call.method === 'retryJob')[attempt - 1]!;
      delays.push((retry.input.runAt as number) - retry.at);
      expect(retry.input.error).toBe(`Error: HTTP 503 (${attempt})`);
      // Not run again before its time.
      await vi.advanceTimersByTimeAsync(Math.max(retry.at + delays.at(-1)! - 1 - Date.now(), 0));
      expect(runs).toBe(attempt);
      await vi.advanceTimersByTimeAsync(1000);
      expect(runs).toBe(attempt + 1);
    }
    // Half of the ceilings 1 s, 2 s, 4 s, then the cap 5 s.
    expect(delays).toEqual([500, 1000, 2000, 2500]);
    expect(jobs[0]).toMatchObject({ status: 'failed', attempts: 5, lastError: 'Error: HTTP 503 (5)' });
    expect(calls.filter((call) => call.method === 'failJob')).toHaveLength(1);
  });

  it('documents its default schedule: ceilings doubling from 30 s to 4 h, 20 attempts', () => {
    const ceilings = Array.from({ length: 19 }, (_, i) => backoffDelay(i + 1, { random: () => 1 }));
    expect(ceilings.slice(0, 10)).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_840_000, 7_680_000, 14_400_000,
    ]);
    expect(new Set(ceilings.slice(9))).toEqual(new Set([14_400_000]));
    const total = ceilings.reduce((sum, ms) => sum + ms, 0);
    // At most about 44 hours from the first failure to the last attempt, about 22 on average.
    expect(total / 3_600_000).toBeCloseTo(44.26, 1);
    expect(backoffDelay(3, { random: () => 0 })).toBe(0);
  });

  it('honours a retryAfter, and fails at once on a failure that is not retryable', async () => {
    const { store, jobs, calls } = memoryJobs();
    runner = createJobRunner({
      store,
      clock,
      kinds: {
        webhook: (job) => {
          if (job.key === 'slow') throw new JobError('HTTP 429', { retryAfterMs: 120_000 });
          throw new JobError('HTTP 410', { retryable: false });
        },
      },
    });
    await store.enqueueJobs({ jobs: [newJob('slow'), newJob('gone')], now: T0 });
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.find((call) => call.method === 'retryJob')!.input).toMatchObject({ runAt: T0 + 120_000 });
    expect(jobs[1]).toMatchObject({ status: 'failed', attempts: 1, lastError: 'JobError: HTTP 410' });
    await vi.advanceTimersByTimeAsync(119_000);
    expect(jobs[0]).toMatchObject({ status: 'pending', attempts: 1 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(jobs[0]!.attempts).toBe(2);
  });

  it('runs the jobs of one key in order, one at a time, and up to `concurrency` jobs at once', async () => {
    const { store } = memoryJobs();
    const started: string[] = [];
    const finishers = new Map<string, () => void>();
    runner = createJobRunner({
      store,
      clock,
      concurrency: 2,
      kinds: {
        webhook: (job) =>
          new Promise<void>((resolve) => {
            started.push(job.id);
            finishers.set(job.id, resolve);
          }),
      },
    });
    // job_1, job_2 of key a; job_3 of key b; job_4 of key c.
    await store.enqueueJobs({ jobs: [newJob('a'), newJob('a'), newJob('b'), newJob('c')], now: T0 });
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual(['job_1', 'job_3']);
    finishers.get('job_1')!();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual(['job_1', 'job_3', 'job_2']);
    finishers.get('job_3')!();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual(['job_1', 'job_3', 'job_2', 'job_4']);
    finishers.get('job_2')!();
    finishers.get('job_4')!();
  });

  it("claims the next job as soon as a handler ends, before its outcome is recorded, and the key's next once it is", async () => {
    const { store, jobs, calls } = memoryJobs();
    // Outcomes are recorded only when the test lets them.
    const recordings: (() => void)[] = [];
    const complete = store.completeJob.bind(store);
    store.completeJob = (input) =>
      new Promise((resolve) => {
        calls.push({ method: 'completeJob asked', input, at: Date.now() });
        recordings.push(() => resolve(complete(input)));
      });
    const started: string[] = [];
    runner = createJobRunner({
      store,
      clock,
      concurrency: 1,
      pollMs: 60_000,
      kinds: { webhook: (job) => void started.push(job.id) },
    });
    // job_1 of key a, job_2 of key b, job_3 of key a again.
    await store.enqueueJobs({ jobs: [newJob('a'), newJob('b'), newJob('a')], now: T0 });
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    // job_1 ran; its outcome is asked for, not recorded; the slot is free and job_2 ran too, its
    // claim asked for right after job_1's outcome.
    expect(started).toEqual(['job_1', 'job_2']);
    expect(calls.map((call) => call.method).slice(0, 4)).toEqual([
      'claimJobs',
      'completeJob asked',
      'claimJobs',
      'completeJob asked',
    ]);
    expect(jobs[0]!.status).toBe('running');
    // job_3 waits for job_1, its key's earlier job, to be recorded done; then it is claimed at once.
    recordings.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    expect(jobs[0]!.status).toBe('done');
    expect(started).toEqual(['job_1', 'job_2', 'job_3']);
    for (const record of recordings.splice(0)) record();
    await vi.advanceTimersByTimeAsync(0);
    for (const record of recordings.splice(0)) record();
    await vi.advanceTimersByTimeAsync(0);
    expect(jobs.map((job) => job.status)).toEqual(['done', 'done', 'done']);
  });

  it('stop() waits for the jobs in flight and claims nothing more', async () => {
    const { store, jobs, calls } = memoryJobs();
    let finish: () => void = () => {};
    runner = createJobRunner({
      store,
      clock,
      kinds: {
        webhook: () =>
          new Promise<void>((resolve) => {
            finish = resolve;
          }),
      },
    });
    await store.enqueueJobs({ jobs: [newJob('a')], now: T0 });
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = runner.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(stopped).toBe(false);
    expect(jobs[0]!.status).toBe('running');
    const claims = calls.filter((call) => call.method === 'claimJobs').length;
    await store.enqueueJobs({ jobs: [newJob('b')], now: Date.now() });
    finish();
    await stopping;
    expect(stopped).toBe(true);
    expect(jobs[0]!.status).toBe('done');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls.filter((call) => call.method === 'claimJobs')).toHaveLength(claims);
    expect(jobs[1]!.status).toBe('pending');
  });

  it('survives a store that fails and a handler that throws anything, and aborts a handler at its lease end', async () => {
    const { store, jobs } = memoryJobs();
    const realClaim = store.claimJobs.bind(store);
    let failClaims = 1;
    store.claimJobs = async (input) => {
      if (failClaims-- > 0) throw new Error('connection refused');
      return realClaim(input);
    };
    const errors: string[] = [];
    let aborted = false;
    runner = createJobRunner({
      store,
      clock,
      pollMs: 1000,
      leaseMs: 5000,
      logger: { info() {}, warn() {}, error: (message) => errors.push(message) },
      kinds: {
        webhook: (job, { signal }) => {
          if (job.key === 'throws') throw 'not even an Error';
          return new Promise<void>((resolve) => {
            signal.addEventListener('abort', () => {
              aborted = true;
              resolve();
            });
          });
        },
      },
    });
    await store.enqueueJobs({ jobs: [newJob('throws'), newJob('hangs')], now: T0 });
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(errors).toEqual(['claiming jobs failed']);
    expect(jobs[0]!.status).toBe('pending');
    await vi.advanceTimersByTimeAsync(1000);
    expect(jobs[0]).toMatchObject({ status: 'pending', attempts: 1, lastError: 'not even an Error' });
    expect(jobs[1]!.status).toBe('running');
    await vi.advanceTimersByTimeAsync(5000);
    expect(aborted).toBe(true);
  });
});
