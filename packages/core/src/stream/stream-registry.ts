import type { Clock } from '../ports/clock.js';
import type { Hub, HubMessage } from '../ports/hub.js';
import type { Logger } from '../ports/logger.js';
import type { Metrics } from '../ports/metrics.js';
import type { Store } from '../ports/store.js';
import type { BrowserStream, StreamOwner } from './browser-stream.js';
import { CatchUp } from './catch-up.js';
import { HeartbeatRing } from './heartbeat-ring.js';
import { SentMarker } from './sent-marker.js';
import { StreamsByBrowser } from './streams-by-browser.js';

/** What the registry needs. */
export interface StreamRegistryDeps {
  store: Store;
  hub: Hub;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  heartbeatMs: number;
  /** Bytes a stream may hold for a reader that does not keep up; past it the stream is cut. */
  maxBufferBytes: number;
  /** Open streams refresh their browsers' last-seen time often enough to never look stale. */
  staleBrowserMs: number;
  /** How often every open stream is caught up from the store; 0 for only on a gap or a hub's break. */
  catchUpIntervalMs: number;
}

/**
 * The open streams of this process, by browser. It receives every hub message and routes it to
 * the streams it concerns; a heartbeat ring writes each stream's heartbeats, spread over the
 * interval, and the sweeper records that their browsers are still there. What the hub may have
 * lost, the catch-up reads from the store: for a stream whose sequence shows a gap, for every
 * stream when the hub says it missed messages, and for every stream each `catchUpIntervalMs`.
 */
export class StreamRegistry implements StreamOwner {
  readonly #byBrowser = new StreamsByBrowser();
  readonly #sent: SentMarker;
  readonly #unsubscribe: () => void;
  /** Its timer runs while at least one stream is open, so that an idle instance holds none. */
  readonly #heartbeats: HeartbeatRing<BrowserStream>;
  readonly #catchUp: CatchUp;
  #lastTouchAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: StreamRegistryDeps) {
    this.#sent = new SentMarker({ store: deps.store, clock: deps.clock, logger: deps.logger, delayMs: 5 });
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
      () => void this.#catchUp.all(),
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

  /** Records attempts written by a stream as sent (batched). */
  written(attemptIds: string[]): void {
    this.#sent.add(attemptIds);
  }

  add(stream: BrowserStream): void {
    const before = this.#byBrowser.size;
    this.#byBrowser.add(stream);
    if (this.#byBrowser.size === before) return;
    this.#heartbeats.add(stream);
    this.deps.metrics.streamOpened();
  }

  /** Forgets an ended stream; its browser's last-seen time starts the stale countdown now. */
  remove(stream: BrowserStream): void {
    if (!this.#byBrowser.delete(stream)) return;
    this.deps.metrics.streamClosed();
    this.#heartbeats.delete(stream);
    this.deps.store
      .touchBrowsers({ browserIds: [stream.browserId], now: this.deps.clock.now() })
      .catch((error: unknown) =>
        this.deps.logger.error('recording a closed stream failed', {
          request_id: stream.requestId,
          browser_id: stream.browserId,
          error: String(error),
        }),
      );
  }

  /** The projects that have open streams here. */
  openProjectIds(): string[] {
    const ids = new Set<string>();
    for (const stream of this.#byBrowser.all()) ids.add(stream.projectId);
    return [...ids];
  }

  /** Writes a heartbeat comment to every open stream. */
  heartbeat(): void {
    for (const stream of this.#byBrowser.all()) stream.heartbeat();
  }

  /**
   * Records that every browser with an open stream here was seen now, when a quarter of the
   * stale timeout has passed since the last time: often enough that none ever looks stale, and
   * one write for all of them.
   */
  async touchOpenBrowsers(): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.#lastTouchAt < this.deps.staleBrowserMs / 4) return;
    this.#lastTouchAt = now;
    if (this.#byBrowser.size === 0) return;
    await this.deps.store.touchBrowsers({ browserIds: this.#byBrowser.browserIds(), now });
  }

  /** Writes pending `sent` records. */
  flush(): Promise<void> {
    return this.#sent.flush();
  }

  /** Closes every stream and stops the timers and the hub subscription. */
  async close(): Promise<void> {
    this.#unsubscribe();
    this.#catchUp.stop();
    for (const stream of this.#byBrowser.all()) stream.close();
    await this.#sent.flush();
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
      case 'close-project': {
        for (const stream of this.#byBrowser.all()) if (stream.projectId === message.projectId) stream.close();
        break;
      }
    }
  }
}
