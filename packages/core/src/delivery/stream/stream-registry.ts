import type { Clock } from '../../ports/clock.js';
import type { Hub, HubMessage } from '../../ports/hub.js';
import type { Logger } from '../../ports/logger.js';
import type { Metrics } from '../../ports/metrics.js';
import type { BrowserStore, DeliveryStore } from '../../ports/store.js';
import { BatchedWrites, nextTurn } from './batched-writes.js';
import type { BrowserStream, StreamOwner } from './browser-stream.js';
import { CatchUp } from './catch-up.js';
import { HeartbeatRing } from './heartbeat-ring.js';
import { sseUnsequencedEvent } from './sse.js';
import { StreamsByBrowser } from './streams-by-browser.js';

/** What the registry needs. */
export interface StreamRegistryDeps {
  store: BrowserStore & DeliveryStore;
  hub: Hub;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  heartbeatMs: number;
  /** Bytes a stream may hold for a reader that does not keep up; past it the stream is cut. */
  maxBufferBytes: number;
  /**
   * This instance's id in the store: the browsers of its streams are held by it, and it renews
   * its own record often enough (a quarter of `staleBrowserMs`) that none of them looks stale.
   */
  instanceId: string;
  staleBrowserMs: number;
  /** How often every open stream is caught up from the store; 0 for only on a gap or a hub's break. */
  catchUpIntervalMs: number;
}

/** How long the records of attempts written to streams gather before they are stored. */
export const SENT_RECORD_DELAY_MS = 20;

/**
 * The open streams of this process, by browser. It follows the browser of every open stream on
 * the hub, receives their messages and routes each to the streams it concerns; a heartbeat ring writes each stream's heartbeats, spread over the
 * interval, and the sweeper records that their browsers are still there. What the hub may have
 * lost, the catch-up reads from the store: for a stream whose sequence shows a gap, for the
 * streams of the browsers the hub says it may have missed messages of (every stream when it
 * names none), and for every stream each `catchUpIntervalMs`.
 */
export class StreamRegistry implements StreamOwner {
  readonly #byBrowser = new StreamsByBrowser();
  /** Attempts written to streams, to record as `sent`. */
  readonly #sent: BatchedWrites<string>;
  /** When a stream here wrote each attempt whose record of sending is not stored yet. */
  readonly #writtenAt = new Map<string, number>();
  /**
   * Browsers whose first stream here opened or whose last one ended: each is recorded as held by
   * this instance or let go of, by what it has here when the write runs, so that the last write
   * of a browser always says what is true after its last change.
   */
  readonly #holds: BatchedWrites<string>;
  readonly #unsubscribe: () => void;
  /** Its timer runs while at least one stream is open, so that an idle instance holds none. */
  readonly #heartbeats: HeartbeatRing<BrowserStream>;
  readonly #catchUp: CatchUp;
  #lastTouchAt = Number.NEGATIVE_INFINITY;
  /**
   * Open streams per project: the sweeper asks every second which projects have any, which would
   * otherwise walk every open stream.
   */
  readonly #perProject = new Map<string, number>();
  /** Projects whose streams are being closed, a slice at a time. */
  readonly #closingProjects = new Set<string>();

  constructor(private readonly deps: StreamRegistryDeps) {
    // 20 ms: at a few hundred events a second an instance records several attempts per statement
    // rather than one (each statement is a round trip to PostgreSQL, or an UPDATE in SQLite's
    // group), and the record still lands before the browser SDK's receipts, gathered for 50 ms,
    // so that an attempt reads `sent` by `stream` before it reads `delivered`.
    this.#sent = new BatchedWrites({
      delayMs: SENT_RECORD_DELAY_MS,
      chunkSize: WRITE_CHUNK,
      write: (attemptIds) => {
        // Each attempt is recorded sent at the time its stream wrote it, not when the batch is.
        // The times are taken as the write starts: an attempt written again meanwhile (a stream
        // resumed while this record fails) is stamped anew for the record that follows.
        const now = deps.clock.now();
        const sentAts = attemptIds.map((id) => this.#writtenAt.get(id) ?? now);
        for (const id of attemptIds) this.#writtenAt.delete(id);
        return deps.store.markAttemptsSent({ attemptIds, now, via: 'stream', sentAts });
      },
      // The attempts stay `accepted`; they are written again on the browser's next resume.
      // Attempts of many requests are recorded together: the log line names the task, not a request.
      onError: (error, count) =>
        deps.logger.error('recording sent attempts failed', { task: 'mark-sent', error: String(error), count }),
    });
    this.#holds = new BatchedWrites({
      delayMs: 50,
      chunkSize: WRITE_CHUNK,
      write: (browserIds) => this.#writeHolds(browserIds),
      // A browser not recorded as held looks older than it is: at worst it is reaped as stale a
      // little early, and its page connects again. One not let go of stays fresh until this
      // instance next renews its hold, which lets go of it then.
      onError: (error, count) =>
        deps.logger.error('recording held browsers failed', { task: 'hold-browsers', error: String(error), count }),
    });
    this.#heartbeats = new HeartbeatRing(deps.heartbeatMs);
    this.#catchUp = new CatchUp({
      store: deps.store,
      clock: deps.clock,
      logger: deps.logger,
      intervalMs: deps.catchUpIntervalMs,
      streamsOf: (browserId) => this.#byBrowser.of(browserId),
      openBrowserIds: () => this.#byBrowser.browserIds(),
    });
    this.#unsubscribe = deps.hub.subscribe(
      (message) => this.#route(message),
      (browserIds) => {
        if (browserIds === undefined) void this.#catchUp.all();
        else for (const browserId of browserIds) void this.#catchUp.browser(browserId);
      },
    );
  }

  /** Number of open streams. */
  get size(): number {
    return this.#byBrowser.size;
  }

  get maxBufferBytes(): number {
    return this.deps.maxBufferBytes;
  }

  /** A stream ended: it is forgotten. */
  ended(stream: BrowserStream): void {
    this.remove(stream);
  }

  /**
   * Catches the open streams of these browsers up from the store soon (every open stream for
   * null): a send committed through an application's transaction is delivered this way.
   */
  catchUp(browserIds: readonly string[] | null): void {
    if (browserIds === null) {
      void this.#catchUp.all();
      return;
    }
    for (const browserId of browserIds) if (this.#byBrowser.has(browserId)) void this.#catchUp.browser(browserId);
  }

  /** A catch-up passed over the stream while it opened: its browser is caught up now. */
  caughtUpWhileOpening(stream: BrowserStream): void {
    void this.#catchUp.browser(stream.browserId);
  }

  /**
   * Resolves once the record that a stream here wrote any of these attempts is stored: a receipt
   * for one waits for it, so the attempt reads `sent` by `stream` before it moves on.
   */
  sentRecorded(attemptIds: readonly string[]): Promise<void> {
    return this.#sent.written(attemptIds);
  }

  /** Records attempts written by a stream as sent (batched), each at the time it was written. */
  written(attemptIds: string[]): void {
    const now = this.deps.clock.now();
    for (const id of attemptIds) if (!this.#writtenAt.has(id)) this.#writtenAt.set(id, now);
    this.#sent.add(attemptIds);
  }

  /**
   * Holds a stream and follows its browser on the hub. The promise resolves once the hub
   * receives the browser's messages: the stream reads its backlog from the store only then, so
   * that what is published meanwhile reaches it from one or the other (never rejects).
   */
  add(stream: BrowserStream): Promise<void> {
    const before = this.#byBrowser.size;
    const first = !this.#byBrowser.has(stream.browserId);
    this.#byBrowser.add(stream);
    if (this.#byBrowser.size === before) return FOLLOWED;
    if (first) this.#holds.add([stream.browserId]);
    const following = this.deps.hub.follow?.(stream.browserId) ?? FOLLOWED;
    this.#perProject.set(stream.projectId, (this.#perProject.get(stream.projectId) ?? 0) + 1);
    this.#heartbeats.add(stream);
    this.deps.metrics.streamOpened();
    return following;
  }

  /** Forgets an ended stream; after its browser's last one, the stale countdown starts now. */
  remove(stream: BrowserStream): void {
    if (!this.#byBrowser.delete(stream)) return;
    this.deps.hub.unfollow?.(stream.browserId);
    const left = (this.#perProject.get(stream.projectId) ?? 1) - 1;
    if (left === 0) this.#perProject.delete(stream.projectId);
    else this.#perProject.set(stream.projectId, left);
    this.deps.metrics.streamClosed();
    this.#heartbeats.delete(stream);
    if (!this.#byBrowser.has(stream.browserId)) this.#holds.add([stream.browserId]);
  }

  /** The projects that have open streams here. */
  openProjectIds(): string[] {
    return [...this.#perProject.keys()];
  }

  /** Writes a heartbeat comment to every open stream. */
  heartbeat(): void {
    for (const stream of this.#byBrowser.all()) stream.heartbeat();
  }

  /**
   * Renews this instance's record, and with it every browser it holds, when a quarter of the
   * stale timeout has passed since the last time: often enough that none ever looks stale. The
   * browsers of its streams are written only where the store does not have them as held here
   * (another instance took one, or let go of it), so renewing writes one row, not one per stream.
   */
  async touchOpenBrowsers(): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.#lastTouchAt < this.deps.staleBrowserMs / 4) return;
    this.#lastTouchAt = now;
    if (this.#byBrowser.size === 0) return;
    this.#holds.add(this.#byBrowser.browserIds());
    await this.#holds.flush();
  }

  /** Writes pending `sent` records and held browsers. */
  async flush(): Promise<void> {
    await Promise.all([this.#sent.flush(), this.#holds.flush()]);
  }

  /** Records each browser as held here while it has a stream here, else as let go of. */
  async #writeHolds(browserIds: string[]): Promise<void> {
    const { store, clock, instanceId } = this.deps;
    const held: string[] = [];
    const released: string[] = [];
    for (const browserId of browserIds) (this.#byBrowser.has(browserId) ? held : released).push(browserId);
    const now = clock.now();
    if (held.length > 0) await store.holdBrowsers({ instanceId, browserIds: held, now });
    if (released.length > 0) await store.releaseBrowsers({ instanceId, browserIds: released, now });
  }

  /** Closes every stream, a slice per turn, stops the timers and the hub subscription, and writes what is pending. */
  async close(): Promise<void> {
    this.#unsubscribe();
    this.#catchUp.stop();
    await closeInSlices(this.#byBrowser.all());
    await this.flush();
  }

  #route(message: HubMessage): void {
    switch (message.type) {
      case 'deliver': {
        for (const stream of this.#byBrowser.of(message.delivery.browserId)) {
          if (stream.deliver(message.delivery)) this.#catchUp.browser(message.delivery.browserId);
        }
        break;
      }
      case 'close-browser': {
        for (const stream of this.#byBrowser.of(message.browserId)) stream.close();
        break;
      }
      case 'inbox': {
        const streams = this.#byBrowser.of(message.browserId);
        if (streams.length === 0) break;
        const bytes = sseUnsequencedEvent('inbox', message.update);
        for (const stream of streams) stream.event(bytes);
        break;
      }
      case 'close-project': {
        // Once per project at a time: the sweeper repeats the message while streams are open.
        // A stream of the project that opens while the slices run is not in this list; its open
        // checked the project in the store before the suspension, and the sweeper closes it at
        // its next run, which looks for open streams of suspended projects.
        const { projectId } = message;
        if (this.#closingProjects.has(projectId)) break;
        this.#closingProjects.add(projectId);
        const closing = this.#byBrowser.all().filter((stream) => stream.projectId === projectId);
        closeInSlices(closing)
          .catch((error: unknown) =>
            this.deps.logger.error('closing streams failed', { task: 'close-project', error: String(error) }),
          )
          .finally(() => this.#closingProjects.delete(projectId));
        break;
      }
    }
  }
}

const FOLLOWED: Promise<void> = Promise.resolve();

/** Items per store call of the batched writes: small enough that one call holds the loop briefly (bench/NOTES.md#figures-behind-the-design). */
const WRITE_CHUNK = 500;

/**
 * Streams closed in one turn of the event loop at most. Closing one ends its response and its
 * connection, and the host pays again when the client closes its end: closing them all at once
 * holds the event loop for as long as all of that takes (bench/NOTES.md#figures-behind-the-design).
 */
export const CLOSE_SLICE = 25;

/** How long one turn closes streams before it lets other work run. */
const CLOSE_BUDGET_MS = 2;

/** Closes streams a slice per turn, each slice at most {@link CLOSE_SLICE} streams or {@link CLOSE_BUDGET_MS}. */
async function closeInSlices(streams: readonly BrowserStream[]): Promise<void> {
  let next = 0;
  while (next < streams.length) {
    const end = Math.min(streams.length, next + CLOSE_SLICE);
    const until = performance.now() + CLOSE_BUDGET_MS;
    do streams[next++]!.close();
    while (next < end && performance.now() < until);
    if (next < streams.length) {
      // A timer first, so that the connections just closed are let go of; then the next turn's
      // check phase, so that I/O is polled between two slices even when the timer was due at once.
      await new Promise((resolve) => setTimeout(resolve, 1));
      await nextTurn();
    }
  }
}
