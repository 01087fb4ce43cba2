/**
 * Gathers the calls made in one turn of the event loop into one run: one statement, or one
 * transaction, for all of them instead of one each. Under load the calls that arrive while
 * runs are in flight wait for the next run, so a run grows with the load; alone, a call waits
 * only for the end of its turn (`setImmediate`).
 *
 * A run never starts before its calls were made, so what it reads is at least as new as what
 * each call would have read alone: nothing is cached from one run to the next.
 */
export interface Group<I, O> {
  /** Queues `item` for the next run; resolves with its own result. */
  run(item: I): Promise<O>;
}

export interface GroupOptions<I, O> {
  /**
   * Runs the items of one group; resolves with one result per item, in their order (a promise
   * of its own for an item that settles apart). A rejection rejects every item of the group.
   */
  runGroup(items: I[]): Promise<Array<O | Promise<O>>>;
  /** At most this many items per run. */
  maxItems: number;
  /** At most this many runs in flight at once. */
  parallel: number;
  /**
   * Whether `item` may join a run that already holds `taken` (never asked for the first item
   * of a run); an item that may not stays queued, in its order, for a later run. @default always
   */
  mayJoin?(item: I, taken: I[]): boolean;
}

interface Queued<I, O> {
  item: I;
  resolve(value: O | Promise<O>): void;
  reject(error: unknown): void;
}

/** A {@link Group} of `runGroup`. */
export function createGroup<I, O>(options: GroupOptions<I, O>): Group<I, O> {
  const { runGroup, maxItems, parallel, mayJoin } = options;
  let queue: Queued<I, O>[] = [];
  let running = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || running >= parallel || queue.length === 0) return;
    scheduled = true;
    setImmediate(start);
  };

  function take(): Queued<I, O>[] {
    if (!mayJoin && queue.length <= maxItems) {
      const all = queue;
      queue = [];
      return all;
    }
    const taken: Queued<I, O>[] = [];
    const items: I[] = [];
    const left: Queued<I, O>[] = [];
    for (const queued of queue) {
      if (taken.length === 0 || (taken.length < maxItems && (!mayJoin || mayJoin(queued.item, items)))) {
        taken.push(queued);
        items.push(queued.item);
      } else {
        left.push(queued);
      }
    }
    queue = left;
    return taken;
  }

  function start() {
    scheduled = false;
    while (running < parallel && queue.length > 0) {
      const taken = take();
      running += 1;
      let results: Promise<Array<O | Promise<O>>>;
      try {
        results = runGroup(taken.map((queued) => queued.item));
      } catch (error) {
        results = Promise.reject(error);
      }
      results
        .then(
          (values) => {
            for (const [i, queued] of taken.entries()) queued.resolve(values[i]!);
          },
          (error: unknown) => {
            for (const queued of taken) queued.reject(error);
          },
        )
        .finally(() => {
          running -= 1;
          schedule();
        });
    }
  }

  return {
    run(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}
