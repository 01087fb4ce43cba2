import type { Delivery } from '../types.js';
import { deliveryPayload } from './delivery.js';
import { SSE_HEARTBEAT, sseEvent, sseEventId, sseRetry } from './sse.js';

/** The `ready` event's data (DECISIONS.md section 4). */
export interface ReadyPayload {
  browser_id: string;
  /** Present only when the browser was registered by this stream; a resume does not repeat it. */
  browser_secret: string | null;
  recipient: string;
  heartbeat_ms: number;
  resumed: boolean;
}

/** What a stream needs from its surroundings. */
export interface BrowserStreamInit {
  browserId: string;
  projectId: string;
  /** Bytes the stream may hold for a reader that does not keep up; past it the stream is cut. */
  maxBufferBytes: number;
  /** Called with the ids of attempts written to the stream, to record them as `sent`. */
  onWritten: (attemptIds: string[]) => void;
  /** Called once when the stream ends, whatever ended it. */
  onEnd: (stream: BrowserStream) => void;
}

const HIGH_WATER_MARK = 16 * 1024;

/**
 * One open event stream of one browser. Writes go into a ReadableStream whose queue is
 * measured in bytes; when the reader lags so far that the queue passes `maxBufferBytes`, the
 * stream is errored (its queue dropped) instead of growing: the browser resumes later and gets
 * every attempt that is not final again.
 */
export class BrowserStream {
  readonly browserId: string;
  readonly projectId: string;
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #ended = false;
  /** While the backlog is read from the store, live deliveries wait here. */
  #held: Delivery[] | null = [];
  readonly #init: BrowserStreamInit;

  constructor(init: BrowserStreamInit) {
    this.#init = init;
    this.browserId = init.browserId;
    this.projectId = init.projectId;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        cancel: () => this.#end(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_MARK }),
    );
  }

  /** True once the stream has ended. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Bytes written but not yet taken by the reader. */
  get bufferedBytes(): number {
    return this.#ended ? 0 : HIGH_WATER_MARK - (this.#controller.desiredSize ?? 0);
  }

  /** Writes the `retry:` advice and the `ready` event. */
  open(ready: ReadyPayload, retryMs: number, sequence: number): void {
    this.#write(sseRetry(retryMs));
    this.#write(sseEvent('ready', sseEventId(this.browserId, sequence), ready));
  }

  /** Writes the backlog read from the store, then what arrived live meanwhile (without repeats). */
  replay(backlog: readonly Delivery[]): void {
    const held = this.#held ?? [];
    this.#held = null;
    const seen = new Set<string>();
    for (const delivery of backlog) seen.add(delivery.attemptId);
    this.#writeDeliveries([...backlog, ...held.filter((delivery) => !seen.has(delivery.attemptId))]);
  }

  /** Writes one live delivery (or holds it while the backlog is being read). */
  deliver(delivery: Delivery): void {
    if (this.#held) this.#held.push(delivery);
    else this.#writeDeliveries([delivery]);
  }

  /** Writes a heartbeat comment. */
  heartbeat(): void {
    this.#write(SSE_HEARTBEAT);
  }

  /** Ends the stream cleanly; the reader gets what was written first. */
  close(): void {
    if (this.#ended) return;
    this.#controller.close();
    this.#end();
  }

  #writeDeliveries(deliveries: readonly Delivery[]): void {
    if (this.#ended || deliveries.length === 0) return;
    const written: string[] = [];
    for (const delivery of deliveries) {
      if (!this.#write(sseEvent('notification', sseEventId(this.browserId, delivery.seq), deliveryPayload(delivery)))) {
        break;
      }
      written.push(delivery.attemptId);
    }
    if (written.length > 0) this.#init.onWritten(written);
  }

  #write(bytes: Uint8Array): boolean {
    if (this.#ended) return false;
    this.#controller.enqueue(bytes);
    if (this.bufferedBytes > this.#init.maxBufferBytes) {
      this.#controller.error(new Error('slow reader: stream buffer limit reached'));
      this.#end();
      return false;
    }
    return true;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#held = null;
    this.#init.onEnd(this);
  }
}
