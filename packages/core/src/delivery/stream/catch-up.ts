import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { Delivery } from '../../ports/records.js';
import type { DeliveryStore } from '../../ports/store.js';
import { nextTurn } from './batched-writes.js';
import type { BrowserStream } from './browser-stream.js';

/** What a catch-up needs from the registry. */
export interface CatchUpDeps {
  store: DeliveryStore;
  clock: Clock;
  logger: Logger;
  /** How often every open stream is caught up; 0 for never on a timer. */
  intervalMs: number;
  /** The browser's open streams, as a list of its own. */
  streamsOf(browserId: string): readonly BrowserStream[];
  openBrowserIds(): string[];
}

/**
 * Browsers per store read. Other work runs between two reads: a store that answers at once
 * (SQLite) would otherwise run every read of a catch-up in one turn of the event loop, which
 * holds it for as long as every read takes together (bench/NOTES.md#figures-behind-the-design).
 */
const BATCH_SIZE = 250;

/**
 * Re-reads from the store what open streams should hold, and writes what they have not
 * written: the store is the source of truth, the hub only the fast path. Requests that come in
 * while a read runs are gathered into the next one, so a burst of gaps costs one read, and a
 * read asks for 250 browsers at a time, each from the first seq its streams may lack.
 */
export class CatchUp {
  readonly #deps: CatchUpDeps;
  #everything = false;
  readonly #browsers = new Set<string>();
  /** The run that has not started yet, which every new request joins. */
  #queued: Promise<void> | null = null;
  #tail: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(deps: CatchUpDeps) {
    this.#deps = deps;
    if (deps.intervalMs > 0) {
      this.#timer = setInterval(() => {
        if (deps.openBrowserIds().length > 0) void this.all();
      }, deps.intervalMs);
      if (typeof this.#timer === 'object' && 'unref' in this.#timer) this.#timer.unref();
    }
  }

  /** Catches the streams of one browser up soon. */
  browser(browserId: string): Promise<void> {
    this.#browsers.add(browserId);
    return this.#schedule();
  }

  /** Catches every open stream up soon. */
  all(): Promise<void> {
    this.#everything = true;
    return this.#schedule();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  #schedule(): Promise<void> {
    if (this.#queued) return this.#queued;
    const queued = this.#tail.then(() => {
      this.#queued = null;
      return this.#run();
    });
    this.#queued = queued;
    this.#tail = queued;
    return queued;
  }

  async #run(): Promise<void> {
    const browserIds = this.#everything ? this.#deps.openBrowserIds() : [...this.#browsers];
    this.#everything = false;
    this.#browsers.clear();
    try {
      for (let i = 0; i < browserIds.length; i += BATCH_SIZE) {
        if (i > 0) await nextTurn();
        await this.#read(browserIds.slice(i, i + BATCH_SIZE));
      }
    } catch (error) {
      // Nobody awaits a catch-up started by a gap or a timer: it must never reject.
      this.#deps.logger.error('catching streams up failed', { error: String(error) });
    }
  }

  async #read(browserIds: string[]): Promise<void> {
    const { store, clock, logger, streamsOf } = this.#deps;
    // The generation is taken before the read: what a stream writes meanwhile is not forgotten.
    // Each browser is read after the lowest seq its streams may lack, not from its first.
    const begun = new Map<BrowserStream, number>();
    const after = new Map<string, number>();
    for (const browserId of browserIds) {
      for (const stream of streamsOf(browserId)) {
        if (stream.opening) {
          // Caught up once its backlog is in: the registry asks again for its browser.
          stream.passedOverWhileOpening();
          continue;
        }
        begun.set(stream, stream.beginCatchUp());
        after.set(browserId, Math.min(after.get(browserId) ?? Number.POSITIVE_INFINITY, stream.catchUpAfter));
      }
    }
    if (begun.size === 0) return;
    let pending: Awaited<ReturnType<DeliveryStore['listPendingDeliveries']>>;
    try {
      pending = await store.listPendingDeliveries({
        browserIds,
        now: clock.now(),
        // A browser without a stream here is asked only whether it is still connected.
        afterSeqs: browserIds.map((browserId) => after.get(browserId) ?? Number.MAX_SAFE_INTEGER),
      });
    } catch (error) {
      // The next catch-up (a gap, the hub's return, or the timer) tries again.
      logger.error('catching streams up from the store failed', { error: String(error), browsers: browserIds.length });
      return;
    }
    const byBrowser = new Map<string, Delivery[]>();
    for (const delivery of pending.deliveries) {
      const list = byBrowser.get(delivery.browserId);
      if (list) list.push(delivery);
      else byBrowser.set(delivery.browserId, [delivery]);
    }
    for (const [stream, generation] of begun) stream.catchUp(byBrowser.get(stream.browserId) ?? [], generation);
    // A disconnect whose message was lost: its streams close here as they would have there.
    for (const browserId of pending.disconnectedBrowserIds) {
      for (const stream of streamsOf(browserId)) stream.close();
    }
  }
}
