/** Resolves in the next turn of the event loop, after the I/O that is waiting. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What a {@link BatchedWrites} writes with. */
export interface BatchedWritesOptions<T> {
  /** How long items gather before they are written. */
  delayMs: number;
  /** Items per store call; other work runs between two calls. */
  chunkSize: number;
  write(items: T[]): Promise<void>;
  /** A call that failed: its items are not written (the caller says what that means). */
  onError(error: unknown, count: number): void;
}

/**
 * Items to record in the store, gathered for a short delay and written a chunk per call, each
 * call in a turn of the event loop of its own: ten thousand streams that end at once cost a
 * handful of writes, none of which holds the loop long, where one write per stream, or one write
 * of every row, would (bench/NOTES.md#figures-behind-the-design).
 */
export class BatchedWrites<T> {
  readonly #options: BatchedWritesOptions<T>;
  #pending = new Set<T>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #writing: Promise<void> = Promise.resolve();
  /** Items handed to a write that has not finished yet. */
  readonly #inFlight = new Set<T>();

  constructor(options: BatchedWritesOptions<T>) {
    this.#options = options;
  }

  /** Queues items (an item queued twice is written once). */
  add(items: Iterable<T>): void {
    for (const item of items) this.#pending.add(item);
    if (this.#timer === null && this.#pending.size > 0) {
      this.#timer = setTimeout(() => void this.flush(), this.#options.delayMs);
    }
  }

  /**
   * Resolves once those of `items` that are queued or being written have been written (or their
   * write failed): at once when none is, else after a flush of what is queued.
   */
  written(items: readonly T[]): Promise<void> {
    if (items.some((item) => this.#pending.has(item))) return this.flush();
    if (items.some((item) => this.#inFlight.has(item))) return this.#writing;
    return Promise.resolve();
  }

  /** Writes everything queued so far; resolves once it and every earlier write are done. */
  flush(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#pending.size === 0) return this.#writing;
    const items = [...this.#pending];
    this.#pending = new Set();
    for (const item of items) this.#inFlight.add(item);
    this.#writing = this.#writing
      .then(() => this.#writeAll(items))
      .finally(() => {
        for (const item of items) this.#inFlight.delete(item);
      });
    return this.#writing;
  }

  async #writeAll(items: T[]): Promise<void> {
    const { chunkSize, write, onError } = this.#options;
    for (let start = 0; start < items.length; start += chunkSize) {
      if (start > 0) await nextTurn();
      const chunk = items.slice(start, start + chunkSize);
      try {
        await write(chunk);
      } catch (error) {
        onError(error, chunk.length);
      }
    }
  }
}
