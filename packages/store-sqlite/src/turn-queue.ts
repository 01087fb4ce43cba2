/**
 * Jobs asked for within one turn of the event loop, handed over together in the turn's check
 * phase (`setImmediate`), or at once by `flush`: what the group read and the group commit share.
 */
export interface TurnQueue<J> {
  add(job: J): void;
  /** Hands over what is queued now, if anything. */
  flush(): void;
}

export function createTurnQueue<J>(handle: (jobs: J[]) => void): TurnQueue<J> {
  let queue: J[] = [];
  let scheduled: ReturnType<typeof setImmediate> | null = null;
  function flush(): void {
    if (scheduled !== null) {
      clearImmediate(scheduled);
      scheduled = null;
    }
    const jobs = queue;
    queue = [];
    if (jobs.length > 0) handle(jobs);
  }
  return {
    add(job) {
      queue.push(job);
      scheduled ??= setImmediate(flush);
    },
    flush,
  };
}
