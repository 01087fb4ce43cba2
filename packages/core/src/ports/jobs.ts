/**
 * The durable job queue of the store (docs/jobs.md): work that a change must cause later, such
 * as a request to a customer's endpoint, written in the change's own transaction and run by a
 * job runner with retries, one job of a key at a time and in order.
 */

/** What a job is at: waiting (maybe for a retry), held by a runner, or finished. */
export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

/** A job to enqueue. */
export interface NewJob {
  /** What runs it: a runner handles the kinds it has a handler for. */
  kind: string;
  /**
   * The ordering key: of the unfinished jobs of one key only the oldest can be claimed, so they
   * run one at a time, in the order they were enqueued. Keys are shared by all kinds.
   */
  key: string;
  projectId: string;
  /** Stored as JSON. */
  payload: unknown;
  /** Not claimed before this time. @default the enqueue's `now` */
  runAt?: number;
}

/** A stored job. */
export interface JobRecord {
  /** `job_…`: sorts by creation time. */
  id: string;
  kind: string;
  key: string;
  projectId: string;
  payload: unknown;
  status: JobStatus;
  /** Claims so far, the current one included. */
  attempts: number;
  /** When a pending job is due. */
  runAt: number;
  createdAt: number;
  /** When it became done or failed. */
  finishedAt: number | null;
  /** The error of the last failed attempt. */
  lastError: string | null;
  /** The runner holding (or that last held) the job. */
  leaseOwner: string | null;
  /** Until when that runner holds it: once passed, a running job may be claimed again. */
  leaseUntil: number | null;
  /** A finished job is purged from this time. */
  keepUntil: number | null;
}

/** A job a runner has just claimed: running, leased to it. */
export type ClaimedJob = JobRecord & { status: 'running'; leaseOwner: string; leaseUntil: number };

/** Jobs to enqueue with a write, computed from its result. */
export type JobsOf<Result> = (result: Result) => NewJob[];
