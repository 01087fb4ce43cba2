import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';

/**
 * Collects the attempts written to streams and records them as `sent` in one store call per
 * short interval, so that a fan-out to thousands of streams costs one write, not thousands.
 */
export class SentMarker {
  #pending: string[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #flushing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: { store: Store; clock: Clock; logger: Logger; delayMs: number }) {}

  /** Queues attempts that were just written. */
  add(attemptIds: readonly string[]): void {
    for (const id of attemptIds) this.#pending.push(id);
    if (this.#timer === null) this.#timer = setTimeout(() => void this.flush(), this.deps.delayMs);
  }

  /** Records everything queued so far. */
  flush(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const attemptIds = this.#pending;
    if (attemptIds.length === 0) return this.#flushing;
    this.#pending = [];
    this.#flushing = this.#flushing
      .then(() => this.deps.store.markAttemptsSent({ attemptIds, now: this.deps.clock.now() }))
      .catch((error: unknown) => {
        // The attempts stay `accepted`; they are written again on the browser's next resume.
        // Attempts of many requests are recorded together: the log line names the task, not a request.
        this.deps.logger.error('recording sent attempts failed', {
          task: 'mark-sent',
          error: String(error),
          count: attemptIds.length,
        });
      });
    return this.#flushing;
  }
}
