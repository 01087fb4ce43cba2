import type Database from 'better-sqlite3';
import { createTurnQueue } from './turn-queue.js';

/**
 * Group read: the hot reads asked for within one turn of the event loop (key lookups, notification
 * reads) run together in one read transaction in the turn's check phase, once every request that
 * arrived in the turn has been read off its socket.
 *
 * Each read on its own would be a transaction of its own, and in WAL mode each takes and drops a
 * read lock with two system calls, more than the read itself. Every read still reflects what was
 * committed after the request that asked for it arrived, so it is as fresh as an immediate
 * statement would be: a key revoked before a request was sent is refused.
 */
export interface GroupRead {
  /** Queues `read` (synchronous statements) for this turn's read transaction; resolves with its result. */
  run<T>(read: () => T): Promise<T>;
  /** Runs the queued reads now (before closing the database). */
  flush(): void;
}

interface Job {
  read: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function createGroupRead(db: Database.Database): GroupRead {
  // Deferred: BEGIN takes no lock, the first statement takes the read lock, COMMIT drops it.
  const group = db.transaction((jobs: Job[]) => {
    for (const job of jobs) {
      try {
        job.resolve(job.read());
      } catch (error) {
        job.reject(error);
      }
    }
  });

  const queue = createTurnQueue((jobs: Job[]) => {
    if (!db.open) {
      for (const job of jobs) job.reject(new TypeError('The database connection is not open'));
      return;
    }
    try {
      group.deferred(jobs);
    } catch (error) {
      // BEGIN or COMMIT failed: the jobs that already settled keep their outcome.
      for (const job of jobs) job.reject(error);
    }
  });

  return {
    run<T>(read: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.add({ read, resolve: resolve as (value: unknown) => void, reject });
      });
    },
    flush: queue.flush,
  };
}
