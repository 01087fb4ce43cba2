import fc from 'fast-check';
import { expect } from 'vitest';
import type { JobStore } from '../ports/store.js';
import { T0 } from './fixtures.js';

/** One operation of a random run against the queue. */
type Op =
  | { op: 'enqueue'; keys: number[]; delay: number }
  | { op: 'advance'; ms: number }
  | { op: 'claim'; owner: number; limit: number; leaseMs: number }
  | { op: 'complete' | 'fail'; pick: number; owner: number }
  | { op: 'retry'; pick: number; owner: number; delay: number };

/** A job as the model keeps it. */
interface ModelJob {
  id: string;
  key: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  runAt: number;
  leaseUntil: number | null;
  owner: string | null;
  attempts: number;
}

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('enqueue' as const),
    keys: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 }),
    delay: fc.constantFrom(0, 0, 50, 200),
  }),
  fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 300 }) }),
  fc.record({
    op: fc.constant('claim' as const),
    owner: fc.integer({ min: 0, max: 2 }),
    limit: fc.integer({ min: 1, max: 4 }),
    leaseMs: fc.constantFrom(100, 250),
  }),
  fc.record({
    op: fc.constantFrom('complete' as const, 'fail' as const),
    pick: fc.nat(),
    owner: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({
    op: fc.constant('retry' as const),
    pick: fc.nat(),
    owner: fc.integer({ min: 0, max: 2 }),
    delay: fc.constantFrom(0, 100),
  }),
);

/**
 * Random runs of enqueues, claims, completions, failures and retries, with time moving on, against
 * a model that states the claim rules plainly: a job is claimable when due (pending past its
 * runAt, or running past its lease) and no unfinished job of its key is older; a claim takes the
 * claimable jobs oldest first, up to its limit; finishing or retrying needs the current owner.
 * Each run uses a kind and keys of its own, so runs on one store do not meet.
 */
export async function jobModelProperty(store: JobStore, numRuns = 40): Promise<void> {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(opArbitrary, { minLength: 1, maxLength: 25 }), async (ops) => {
      run++;
      const kind = `model-${run}-${Math.random().toString(36).slice(2)}`;
      const projectId = `proj_${kind}`;
      const model: ModelJob[] = [];
      let now = T0;
      const unfinished = (job: ModelJob) => job.status === 'pending' || job.status === 'running';
      const owned = (pick: number, owner: string) => {
        const running = model.filter((job) => job.status === 'running');
        // Mostly a running job (whoever holds it), sometimes any job.
        const pool = running.length > 0 && pick % 4 !== 0 ? running : model;
        const job = pool[pick % Math.max(pool.length, 1)];
        return { job, holds: job !== undefined && job.status === 'running' && job.owner === owner };
      };
      for (const step of ops) {
        if (step.op === 'advance') {
          now += step.ms;
        } else if (step.op === 'enqueue') {
          const jobs = await store.enqueueJobs({
            jobs: step.keys.map((k) => ({
              kind,
              key: `${kind}:${k}`,
              projectId,
              payload: null,
              runAt: now + step.delay,
            })),
            now,
          });
          for (const job of jobs) {
            model.push({
              id: job.id,
              key: job.key,
              status: 'pending',
              runAt: job.runAt,
              leaseUntil: null,
              owner: null,
              attempts: 0,
            });
          }
        } else if (step.op === 'claim') {
          const owner = `owner-${step.owner}`;
          const expected: ModelJob[] = [];
          for (const [i, job] of model.entries()) {
            if (expected.length >= step.limit) break;
            const due =
              job.status === 'pending' ? job.runAt <= now : job.status === 'running' && job.leaseUntil! <= now;
            const first = !model.slice(0, i).some((older) => older.key === job.key && unfinished(older));
            if (due && first) expected.push(job);
          }
          const claimed = await store.claimJobs({
            kinds: [kind],
            limit: step.limit,
            now,
            leaseMs: step.leaseMs,
            owner,
          });
          expect(claimed.map((job) => job.id)).toEqual(expected.map((job) => job.id));
          for (const job of expected) {
            job.status = 'running';
            job.owner = owner;
            job.leaseUntil = now + step.leaseMs;
            job.attempts++;
          }
          expect(claimed.map((job) => job.attempts)).toEqual(expected.map((job) => job.attempts));
        } else {
          const owner = `owner-${step.owner}`;
          const { job, holds } = owned(step.pick, owner);
          if (!job) continue;
          let answer: boolean;
          if (step.op === 'complete') {
            answer = await store.completeJob({ id: job.id, owner, now, keepUntil: now + 1000 });
            if (holds) job.status = 'done';
          } else if (step.op === 'fail') {
            answer = await store.failJob({ id: job.id, owner, error: 'failed', now, keepUntil: now + 1000 });
            if (holds) job.status = 'failed';
          } else if (step.op === 'retry') {
            answer = await store.retryJob({ id: job.id, owner, runAt: now + step.delay, error: 'retry' });
            if (holds) {
              job.status = 'pending';
              job.runAt = now + step.delay;
            }
          } else {
            throw new Error('unknown operation');
          }
          expect(answer).toBe(holds);
        }
      }
      const stored = (await store.listJobs({ projectId, limit: 1000 })).reverse();
      expect(stored.map((job) => [job.id, job.status, job.attempts])).toEqual(
        model.map((job) => [job.id, job.status, job.attempts]),
      );
    }),
    { numRuns },
  );
}
