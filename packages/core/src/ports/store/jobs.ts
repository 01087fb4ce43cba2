import type { ClaimedJob, JobRecord, JobStatus, NewJob } from '../jobs.js';

/**
 * The job queue (docs/jobs.md). Jobs are also enqueued by the `jobs` of other roles' writes
 * (`createNotification`), in their transaction.
 */
export interface JobStore {
  /** Enqueues jobs, pending from their `runAt` (default `now`), in the order given. */
  enqueueJobs(input: { jobs: NewJob[]; now: number }): Promise<JobRecord[]>;
  /**
   * Claims up to `limit` jobs of the given kinds, oldest first: pending jobs due at `now`, and
   * running jobs whose lease ended before `now`. Of each key only the oldest unfinished job can
   * be claimed, so that a key's jobs run one at a time, in order. Each claimed job becomes
   * running, leased to `owner` until `now + leaseMs`, its attempts raised by one. Atomic across
   * processes and instances: no two callers ever hold one job at once.
   */
  claimJobs(input: {
    kinds: string[];
    limit: number;
    now: number;
    leaseMs: number;
    owner: string;
  }): Promise<ClaimedJob[]>;
  /** Marks a running job of `owner` done, kept until `keepUntil`; false when the lease was lost. */
  completeJob(input: { id: string; owner: string; now: number; keepUntil: number }): Promise<boolean>;
  /** Puts a running job of `owner` back to pending from `runAt`, with the error; false when the lease was lost. */
  retryJob(input: { id: string; owner: string; runAt: number; error: string }): Promise<boolean>;
  /** Marks a running job of `owner` failed for good, kept until `keepUntil`; false when the lease was lost. */
  failJob(input: { id: string; owner: string; error: string; now: number; keepUntil: number }): Promise<boolean>;
  /** A project's jobs, newest first; `before` is the previous page's last id. */
  listJobs(input: {
    projectId: string;
    kind?: string;
    key?: string;
    status?: JobStatus;
    limit: number;
    before?: string;
  }): Promise<JobRecord[]>;
  /**
   * Calls `listener` after jobs enqueued through this store instance are durable (on disk, or
   * committed), with their kinds, so that a runner in this process wakes at once instead of at
   * its next poll. Returns the unsubscribe function.
   */
  onJobsEnqueued(listener: (kinds: string[]) => void): () => void;
}
