import { type Clock, systemClock } from '../ports/clock.js';
import type { ClaimedJob } from '../ports/jobs.js';
import { type Logger, silentLogger } from '../ports/logger.js';
import type { JobStore } from '../ports/store.js';

/**
 * What a handler throws to say how its job failed. Any other error is a retryable failure.
 *
 * @example
 * if (response.status === 429) throw new JobError('HTTP 429', { retryAfterMs: 60_000 });
 * if (response.status === 410) throw new JobError('subscription gone', { retryable: false });
 */
export class JobError extends Error {
  /** False: the job fails at once, without retries. */
  readonly retryable: boolean;
  /** The next attempt no sooner than this (a `Retry-After`), instead of the backoff's delay. */
  readonly retryAfterMs: number | null;

  constructor(message: string, options: { retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JobError';
    this.retryable = options.retryable ?? true;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

/** What a handler gets beside its job. */
export interface JobContext {
  /** Aborted when the job's lease ends: another runner may then claim it, so stop and let it. */
  signal: AbortSignal;
}

/** Runs one job; resolves when done, throws (a {@link JobError} or anything) when it failed. */
export type JobHandler = (job: ClaimedJob, context: JobContext) => Promise<void> | void;

/** The retry schedule: exponential backoff with full jitter (docs/jobs.md#retries). */
export interface JobBackoff {
  /** The ceiling of the first retry's delay; each later ceiling doubles. @default 30000 (30 s) */
  baseMs?: number;
  /** The largest ceiling. @default 14400000 (4 h) */
  capMs?: number;
  /** Attempts in all, the first included; the job fails after the last. @default 20 */
  maxAttempts?: number;
  /** The largest `retryAfterMs` honoured as given; a longer one is cut to this. @default 86400000 (24 h) */
  maxRetryAfterMs?: number;
  /** Uniform in [0, 1): the jitter. @default Math.random */
  random?: () => number;
}

export interface JobRunnerOptions {
  store: JobStore;
  /** The handler of each kind this runner runs. */
  kinds: Record<string, JobHandler>;
  /** Names this runner in the leases it takes: unique per process. @default a random name */
  owner?: string;
  clock?: Clock;
  logger?: Logger;
  /** How long a claim holds a job; a job still running then may be claimed by another runner. @default 60000 */
  leaseMs?: number;
  /** Jobs run at once. @default 4 */
  concurrency?: number;
  /** How often the store is asked for due jobs when nothing woke the runner. @default 1000 */
  pollMs?: number;
  /** How long a finished job stays listed before `purgeExpired` deletes it. @default 7 days */
  keepFinishedMs?: number;
  backoff?: JobBackoff;
}

export interface JobRunner {
  /** Starts polling, and listening to the store's enqueues. Idempotent. */
  start(): void;
  /** Stops claiming, and resolves once the jobs in flight have finished. */
  stop(): Promise<void>;
  /** Asks the store for due jobs now (a store's enqueue in this process does it by itself). */
  wake(): void;
}

const DEFAULT_BACKOFF = {
  baseMs: 30_000,
  capMs: 4 * 3_600_000,
  maxAttempts: 20,
  maxRetryAfterMs: 86_400_000,
} as const;

/**
 * The delay before retry number `attempt` (1 after the first failure): uniform in
 * [0, min(capMs, baseMs × 2^(attempt − 1))), "full jitter", so that jobs failing together spread
 * out. With the defaults the ceilings are 30 s, 1 min, 2 min … 2 h 8 min, then 4 h.
 */
export function backoffDelay(attempt: number, backoff: JobBackoff = {}): number {
  const baseMs = backoff.baseMs ?? DEFAULT_BACKOFF.baseMs;
  const capMs = backoff.capMs ?? DEFAULT_BACKOFF.capMs;
  const random = backoff.random ?? Math.random;
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 52));
  return Math.floor(random() * ceiling);
}

/**
 * A runner of the store's jobs: claims due jobs of its kinds (at most `concurrency` at once),
 * runs each kind's handler, and completes the job, retries it with backoff, or fails it once its
 * attempts are spent or its handler said it cannot succeed (docs/jobs.md). It wakes at once when
 * the store tells it of jobs enqueued in this process, and polls otherwise. No handler error and
 * no store error escapes it: they are logged, and the job's lease brings it back if need be.
 *
 * @example
 * const runner = createJobRunner({ store, kinds: { webhook: deliverWebhook } });
 * runner.start();
 * // on shutdown:
 * await runner.stop();
 */
export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { store, kinds: handlers } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const owner = options.owner ?? `runner-${Math.random().toString(36).slice(2, 12)}`;
  const leaseMs = positive(options.leaseMs ?? 60_000, 'leaseMs');
  const concurrency = positive(options.concurrency ?? 4, 'concurrency');
  const pollMs = positive(options.pollMs ?? 1000, 'pollMs');
  const keepFinishedMs = options.keepFinishedMs ?? 7 * 86_400_000;
  const backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  const kinds = Object.keys(handlers);
  if (kinds.length === 0) throw new TypeError('createJobRunner: give a handler for at least one kind');

  let started = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let claiming: Promise<void> | null = null;
  /** A wake that came while a claim was in flight: claim again after it. */
  let again = false;
  let unsubscribe: (() => void) | null = null;
  const inFlight = new Set<Promise<void>>();
  /** Outcomes asked for and not yet recorded. */
  const recording = new Set<Promise<void>>();

  function schedule(ms: number): void {
    if (stopped) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      tick();
    }, ms);
  }

  function tick(): void {
    if (stopped || !started) return;
    if (claiming) {
      again = true;
      return;
    }
    const free = concurrency - inFlight.size;
    // A slot freed by a finishing job ticks again.
    if (free <= 0) return;
    claiming = claim(free).finally(() => {
      claiming = null;
      if (again) {
        again = false;
        tick();
      }
    });
  }

  async function claim(limit: number): Promise<void> {
    let jobs: ClaimedJob[];
    try {
      jobs = await store.claimJobs({ kinds, limit, now: clock.now(), leaseMs, owner });
    } catch (error) {
      logger.error('claiming jobs failed', { task: 'jobs', owner, error: String(error) });
      schedule(pollMs);
      return;
    }
    for (const job of jobs) {
      const running = runJob(job).finally(() => {
        inFlight.delete(running);
        tick();
      });
      inFlight.add(running);
    }
    // A full claim may have left due jobs behind: ask again as soon as a slot frees (above);
    // otherwise at the next poll.
    schedule(pollMs);
  }

  /**
   * Runs the job's handler, then asks for its outcome to be recorded, and resolves: its slot
   * frees as soon as the outcome is asked for, so that the claim that follows joins the same
   * write where the store groups them (SQLite's group commit). The job cannot be claimed again
   * meanwhile (its lease holds), and a later job of its key is claimed once the outcome is in:
   * the runner ticks again then.
   */
  async function runJob(job: ClaimedJob): Promise<void> {
    const handler = handlers[job.kind]!;
    const lease = new AbortController();
    const leaseTimer = setTimeout(
      () => lease.abort(new Error('the job lease ended')),
      Math.max(0, job.leaseUntil - clock.now()),
    );
    let failure: unknown = null;
    let failed = false;
    try {
      await handler(job, { signal: lease.signal });
    } catch (error) {
      failed = true;
      failure = error;
    } finally {
      clearTimeout(leaseTimer);
    }
    const recorded = recordOutcome(job, failed, failure).finally(() => {
      recording.delete(recorded);
      tick();
    });
    recording.add(recorded);
  }

  /** Records the job done, retried or failed; never rejects. */
  async function recordOutcome(job: ClaimedJob, failed: boolean, failure: unknown): Promise<void> {
    try {
      const now = clock.now();
      const fields = { task: 'jobs', job: job.id, kind: job.kind, attempt: job.attempts };
      let kept: boolean;
      if (!failed) {
        kept = await store.completeJob({ id: job.id, owner, now, keepUntil: now + keepFinishedMs });
      } else {
        const error = describeError(failure);
        const retryable = !(failure instanceof JobError) || failure.retryable;
        if (!retryable || job.attempts >= backoff.maxAttempts) {
          kept = await store.failJob({ id: job.id, owner, error, now, keepUntil: now + keepFinishedMs });
          logger.warn('job failed', { ...fields, error });
        } else {
          const runAt = now + retryDelay(job.attempts, failure);
          kept = await store.retryJob({ id: job.id, owner, runAt, error });
          logger.info('job will be retried', { ...fields, error, run_at: runAt });
        }
      }
      if (!kept) logger.warn('job lease lost before the job finished: another runner has it', fields);
    } catch (error) {
      // The lease runs out and the job is claimed again.
      logger.error('recording a job outcome failed', { task: 'jobs', job: job.id, error: String(error) });
    }
  }

  function retryDelay(attempts: number, failure: unknown): number {
    if (failure instanceof JobError && failure.retryAfterMs !== null) {
      return Math.min(Math.max(failure.retryAfterMs, 0), backoff.maxRetryAfterMs);
    }
    return backoffDelay(attempts, backoff);
  }

  return {
    start() {
      if (started || stopped) return;
      started = true;
      unsubscribe = store.onJobsEnqueued((enqueued) => {
        if (enqueued.some((kind) => Object.hasOwn(handlers, kind))) schedule(0);
      });
      schedule(0);
    },
    async stop() {
      stopped = true;
      unsubscribe?.();
      unsubscribe = null;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await claiming;
      while (inFlight.size > 0 || recording.size > 0) await Promise.allSettled([...inFlight, ...recording]);
    },
    wake() {
      schedule(0);
    },
  };
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`createJobRunner: ${name} must be a positive number`);
  return value;
}

/** The error as recorded with the job: its message, at most 1000 characters. */
function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
}
