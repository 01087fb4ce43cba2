import type Database from 'better-sqlite3';
import { createTurnQueue } from './turn-queue.js';

/**
 * Group commit: writes queued within one turn of the event loop run in one IMMEDIATE
 * transaction, and every caller's promise settles only after that transaction committed. A
 * write that fails fails alone; a commit that fails rejects every write of the group, none of
 * which is then in the database.
 *
 * One commit writes the shared pages (indexes, usage, the browser's sequence) once for the
 * group instead of once per write, which is most of what a durable write costs in WAL mode.
 * The writes of a group also share a state of the caller's (`G`): what they would each read and
 * write again, such as a browser's last sequence number, is read once and written once, at the
 * end of the group.
 *
 * While the flush of a group runs (`afterCommit`), the writes asked for meanwhile are held, not
 * committed in a transaction per turn: once the flush is done they are committed together, as
 * the next group, and flushed together. A write's promise still settles only after a flush that
 * began after its commit, so nothing is answered, or handed on, before it is on disk; what the
 * hold saves is a transaction (its commit writing the shared pages again) per turn of the flush.
 *
 * A group runs its writes one after the other without savepoints. Should one throw, the whole
 * transaction is rolled back and the group runs again with each write in a savepoint of its own,
 * so that only the failing one fails; a write must therefore change the shared state only once
 * its statements have all succeeded, and may be run twice.
 */
export interface GroupCommit<G> {
  /**
   * Queues `work` (synchronous statements) for the next group; resolves with its result once
   * committed and, unless `durable` is false, once `afterCommit` (the flush to disk) is done.
   * Bookkeeping that nobody is answered about (the record that an attempt went out on a stream)
   * passes `durable: false`: it becomes durable with the next flush, and waiting for a flush of
   * its own would only queue the sends behind it.
   */
  run<T>(work: (group: G) => T, options?: { durable?: boolean }): Promise<T>;
  /** Commits the queued group, and any writes held during a flush, now (before closing the database). */
  flush(): void;
}

/**
 * The group commit as writes that share none of its state see it: a job's completion, a webhook
 * message's attempt. They join the next group's transaction and flush.
 */
export interface GroupWrites {
  run<T>(work: () => T): Promise<T>;
}

/** What a group does around its writes, inside its transaction. */
export interface GroupHooks<G> {
  /** The state the writes of a new group share. */
  begin(): G;
  /** Writes what the group's writes left in the shared state, before the commit. */
  end(group: G): void;
  /**
   * Runs after the commit and before any durable write's promise settles, e.g. to flush the
   * commit to disk (see wal-sync.ts); a failure rejects every durable write of the group. Not
   * called for a group of writes none of which is durable.
   */
  afterCommit?: () => Promise<void>;
}

interface Job<G> {
  work: (group: G) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  durable: boolean;
  failed: boolean;
  outcome: unknown;
}

function settle<G>(jobs: Job<G>[]): void {
  for (const job of jobs) {
    if (job.failed) job.reject(job.outcome);
    else job.resolve(job.outcome);
  }
}

/** Thrown out of a group run without savepoints when one of its writes failed. */
class WriteFailed extends Error {}

export function createGroupCommit<G>(db: Database.Database, hooks: GroupHooks<G>): GroupCommit<G> {
  // Every write straight in the group's transaction: the usual case, when none fails.
  const together = db.transaction((jobs: Job<G>[]) => {
    const group = hooks.begin();
    for (const job of jobs) {
      try {
        job.outcome = job.work(group);
      } catch {
        throw new WriteFailed();
      }
    }
    hooks.end(group);
  });
  // Called inside `isolated`, better-sqlite3 runs a transaction function as a savepoint.
  const savepoint = db.transaction((work: () => unknown) => work());
  const isolated = db.transaction((jobs: Job<G>[]) => {
    const group = hooks.begin();
    for (const job of jobs) {
      try {
        job.outcome = savepoint(() => job.work(group));
      } catch (error) {
        job.failed = true;
        job.outcome = error;
      }
      // Some errors (a full disk, an I/O error) make SQLite roll back the whole transaction;
      // the rest must not run in autocommit mode, and the group fails as a whole.
      if (!db.inTransaction) throw job.failed ? job.outcome : new Error('The write transaction was rolled back');
    }
    hooks.end(group);
  });

  /** True while a group's flush runs: the writes asked for meanwhile wait in `held`. */
  let flushing = false;
  let held: Job<G>[] = [];

  const commitGroup = (jobs: Job<G>[]): void => {
    try {
      try {
        together.immediate(jobs);
      } catch (error) {
        if (!(error instanceof WriteFailed)) throw error;
        // Rolled back whole: run again, each write in its own savepoint.
        isolated.immediate(jobs);
      }
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    const { afterCommit } = hooks;
    const durable = jobs.filter((job) => job.durable);
    if (!afterCommit || durable.length === 0) {
      settle(jobs);
      return;
    }
    if (durable.length < jobs.length) settle(jobs.filter((job) => !job.durable));
    flushing = true;
    let flushed: Promise<void>;
    try {
      flushed = afterCommit();
    } catch (error) {
      flushed = Promise.reject(error);
    }
    flushed
      .then(
        () => settle(durable),
        (error: unknown) => {
          for (const job of durable) job.reject(error);
        },
      )
      .finally(() => {
        flushing = false;
        commitHeld();
      });
  };

  /** Commits the writes held during a flush as one group. */
  const commitHeld = (): void => {
    if (held.length === 0) return;
    const jobs = held;
    held = [];
    commitGroup(jobs);
  };

  const queue = createTurnQueue((jobs: Job<G>[]) => {
    if (flushing) {
      for (const job of jobs) held.push(job);
      return;
    }
    commitGroup(jobs);
  });

  return {
    run<T>(work: (group: G) => T, { durable = true }: { durable?: boolean } = {}): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.add({
          work: work as (group: G) => unknown,
          resolve: resolve as (value: unknown) => void,
          reject,
          durable,
          failed: false,
          outcome: undefined,
        });
      });
    },
    flush() {
      // Before closing: what is held and what is queued are committed now, flush or not.
      queue.flush();
      commitHeld();
    },
  };
}
