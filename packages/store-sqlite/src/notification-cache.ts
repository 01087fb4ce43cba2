import type { NotificationWithAttempts } from '@tidings/core';
import type Database from 'better-sqlite3';

/**
 * Notifications as this connection last read them, so that a read of one that has not
 * changed since costs a one-row pragma instead of a join. An entry is exactly what a fresh query
 * would return at the moment it is handed out:
 *
 * - every write of this store that changes an attempt names the notifications it changed, and
 *   those entries are dropped in the same synchronous step as the write;
 * - a commit by any other connection (another server process, the CLI, plain SQL) moves
 *   `PRAGMA data_version`, which is read before every hit, and drops every entry.
 *
 * Entries are frozen: a caller can read them, never change what the next caller gets.
 */
export interface NotificationCache {
  /**
   * The notification if it is kept and nothing can have changed it since; undefined otherwise.
   * Call it before reading the database for a notification to {@link keep}: it reads the version
   * that the read is then measured against.
   */
  get(id: string): NotificationWithAttempts | undefined;
  /** Keeps a notification as it is in the database now: read after a {@link get} in the same synchronous step. */
  keep(found: NotificationWithAttempts): void;
  /** Drops the notifications this connection's write just changed (ids may repeat). */
  forget(notificationIds: Iterable<string>): void;
}

/** Creates the cache of at most `capacity` notifications; 0 keeps none. */
export function createNotificationCache(db: Database.Database, capacity: number): NotificationCache {
  if (capacity === 0) return { get: () => undefined, keep() {}, forget() {} };
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  // Insertion order is the eviction order: the oldest kept leaves first.
  const kept = new Map<string, NotificationWithAttempts>();
  let seenVersion = dataVersion.get()!;

  return {
    get(id) {
      const version = dataVersion.get()!;
      if (version !== seenVersion) {
        // Another connection committed: anything may have changed.
        kept.clear();
        seenVersion = version;
        return undefined;
      }
      return kept.get(id);
    },
    keep(found) {
      // Never the version here: a commit of another connection after the read this entry came
      // from must still drop it at the next get.
      if (kept.size >= capacity) kept.delete(kept.keys().next().value!);
      kept.set(found.notification.id, freeze(found));
    },
    forget(notificationIds) {
      if (kept.size === 0) return;
      for (const id of notificationIds) kept.delete(id);
    },
  };
}

/** Freezes a notification, its data and its attempts, all the way down. */
function freeze(found: NotificationWithAttempts): NotificationWithAttempts {
  deepFreeze(found.notification.data);
  Object.freeze(found.notification);
  for (const attempt of found.attempts) Object.freeze(attempt);
  Object.freeze(found.attempts);
  return Object.freeze(found);
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  for (const inner of Object.values(value)) deepFreeze(inner);
  Object.freeze(value);
}
