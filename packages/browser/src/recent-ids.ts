/** A set of the most recent ids, bounded so that a long-lived page does not grow without end. */
export interface RecentIds {
  /** Adds an id; returns false when it was already there (a duplicate). */
  add(id: string): boolean;
  /** The newest `count` ids, oldest first. */
  newest(count: number): string[];
}

/** Creates a {@link RecentIds} that forgets the oldest id once it holds `limit`. */
export function createRecentIds(limit: number, initial: readonly string[] = []): RecentIds {
  const ids = new Set<string>();
  const add = (id: string) => {
    if (ids.has(id)) return false;
    ids.add(id);
    if (ids.size > limit) ids.delete(ids.values().next().value as string);
    return true;
  };
  for (const id of initial) add(id);
  return {
    add,
    // From `size - count`: none when `count` is 0, all of them when it exceeds the size (a negative
    // start counts from the end, and one before the first is the first).
    newest: (count) => [...ids].slice(ids.size - count),
  };
}
