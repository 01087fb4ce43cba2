import type Database from 'better-sqlite3';

/**
 * Group commit: writes queued within one turn of the event loop run in one IMMEDIATE
 * transaction, each in its own savepoint, and every caller's promise settles only after that
 * transaction committed. A send that fails rolls back alone; a commit that fails rejects every
 * write of the group, none of which is then in the database.
 *
 * One commit writes the shared pages (indexes, usage, the browser's sequence) once for the
 * group instead of once per write, which is most of what a durable write costs in WAL mode.
 */
export interface GroupCommit {
  /**
   * Queues `work` (synchronous statements) for the next group; resolves with its result once
   * committed. `committed`, if given, runs with that result right after the commit, before any
   * promise of the group settles and before anything else can read or write.
   */
  run<T>(work: () => T, committed?: (outcome: T) => void): Promise<T>;
  /** Runs the queued group now (before closing the database). */
  flush(): void;
}

interface Job {
  work: () => unknown;
  committed: ((outcome: unknown) => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  failed: boolean;
  outcome: unknown;
}

export function createGroupCommit(db: Database.Database): GroupCommit {
  let queue: Job[] = [];
  let scheduled: ReturnType<typeof setImmediate> | null = null;

  // Called inside `group`, better-sqlite3 runs a transaction function as a savepoint.
  const savepoint = db.transaction((work: () => unknown) => work());
  const group = db.transaction((jobs: Job[]) => {
    for (const job of jobs) {
      try {
        job.outcome = savepoint(job.work);
      } catch (error) {
        job.failed = true;
        job.outcome = error;
      }
      // Some errors (a full disk, an I/O error) make SQLite roll back the whole transaction;
      // the rest must not run in autocommit mode, and the group fails as a whole.
      if (!db.inTransaction) throw job.failed ? job.outcome : new Error('The write transaction was rolled back');
    }
  });

  function flush(): void {
    if (scheduled !== null) {
      clearImmediate(scheduled);
      scheduled = null;
    }
    const jobs = queue;
    queue = [];
    if (jobs.length === 0) return;
    try {
      group.immediate(jobs);
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    for (const job of jobs) if (!job.failed) job.committed?.(job.outcome);
    for (const job of jobs) {
      if (job.failed) job.reject(job.outcome);
      else job.resolve(job.outcome);
    }
  }

  return {
    run<T>(work: () => T, committed?: (outcome: T) => void): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({
          work,
          committed: committed as ((outcome: unknown) => void) | undefined,
          resolve: resolve as (value: unknown) => void,
          reject,
          failed: false,
          outcome: undefined,
        });
        scheduled ??= setImmediate(flush);
      });
    },
    flush,
  };
}
