import type { z } from 'zod';
import type { readyEventSchema } from '../object-schemas.js';
import type { Delivery } from '../types.js';
import { deliveryPayloadJson } from './delivery.js';
import { SSE_HEARTBEAT, sseEvent, sseEventId, sseEventOfJson, sseRetry } from './sse.js';

/**
 * The `ready` event's data. `browser_secret` is present only when the stream registered the
 * browser; a resume does not repeat it.
 */
export type ReadyPayload = z.infer<typeof readyEventSchema>;

/** What a stream needs from its surroundings. */
export interface BrowserStreamInit {
  /** The id of the request that opened the stream, for the log lines about it. */
  requestId: string;
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

/** An event waiting for the reader: encoded once, with the attempt it carries. */
interface PendingEvent {
  attemptId: string;
  bytes: Uint8Array;
  /** Live events count toward the buffer limit; the backlog is the store's and is paced by the reader. */
  live: boolean;
}

/**
 * One open event stream of one browser. Events are handed to the reader as it pulls (the
 * ReadableStream's queue is measured in bytes), so a large backlog on resume is written at the
 * reader's pace. Live events that pile up for a reader that does not keep up count against
 * `maxBufferBytes`; past it the stream is errored and its queue dropped instead of growing:
 * the browser resumes later and gets every attempt that is not final again.
 */
export class BrowserStream {
  readonly browserId: string;
  readonly projectId: string;
  /** The id of the request that opened the stream. */
  readonly requestId: string;
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #ended = false;
  /** While the backlog is read from the store, live deliveries wait here. */
  #held: Delivery[] | null = [];
  /**
   * The attempts written (or queued) to this stream that may still be pending, with the
   * catch-up generation they were written in: a delivery that arrives twice (from the hub and
   * from a catch-up, or from two hubs' views) is written once. A catch-up forgets the ones the
   * store no longer lists as pending, so this holds at most the browser's pending attempts.
   */
  #written = new Map<string, number>();
  #generation = 0;
  /** The highest sequence this stream has seen: a delivery beyond the next one shows a gap. */
  #maxSeq = 0;
  #pending: PendingEvent[] = [];
  #pendingHead = 0;
  #pendingLiveBytes = 0;
  #pumpScheduled = false;
  readonly #init: BrowserStreamInit;

  constructor(init: BrowserStreamInit) {
    this.#init = init;
    this.browserId = init.browserId;
    this.requestId = init.requestId;
    this.projectId = init.projectId;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => this.#pump(),
        cancel: () => this.#end(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_MARK }),
    );
  }

  /** True once the stream has ended. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Bytes of live events held for the reader: in the stream's queue and waiting behind it. */
  get bufferedBytes(): number {
    if (this.#ended) return 0;
    return HIGH_WATER_MARK - (this.#controller.desiredSize ?? 0) + this.#pendingLiveBytes;
  }

  /** Writes the `retry:` advice and the `ready` event. */
  open(ready: ReadyPayload, retryMs: number, sequence: number): void {
    this.#maxSeq = sequence;
    this.#enqueue(sseRetry(retryMs));
    this.#enqueue(sseEvent('ready', sseEventId(this.browserId, sequence), ready));
  }

  /** Queues the backlog read from the store, then what arrived live meanwhile (without repeats). */
  replay(backlog: readonly Delivery[]): void {
    const held = this.#held ?? [];
    this.#held = null;
    for (const delivery of backlog) this.#queue(delivery, false);
    for (const delivery of held) if (!this.#written.has(delivery.attemptId)) this.#queue(delivery, true);
    this.#afterQueue();
  }

  /**
   * Queues one live delivery (or holds it while the backlog is being read), unless the stream
   * wrote it already. Returns true when its sequence shows a gap: a delivery before it may have
   * been lost on the way (or was final before it could be sent), and the store should be asked.
   */
  deliver(delivery: Delivery): boolean {
    if (this.#ended) return false;
    if (this.#held) {
      this.#held.push(delivery);
      return false;
    }
    const gap = delivery.seq > this.#maxSeq + 1;
    if (this.#written.has(delivery.attemptId)) return false;
    this.#queue(delivery, true);
    this.#afterQueue();
    return gap;
  }

  /** True while the backlog is being read: a catch-up has nothing to add yet. */
  get opening(): boolean {
    return this.#held !== null;
  }

  /** Starts a catch-up: returns the generation to hand to {@link catchUp} with what the store lists. */
  beginCatchUp(): number {
    return ++this.#generation;
  }

  /**
   * Writes the pending deliveries the store listed that this stream has not written, and forgets
   * written ones that are no longer pending. Ones written after the read began (of this
   * `generation`) are kept: the read may have been too early to list them.
   */
  catchUp(pending: readonly Delivery[], generation: number): void {
    if (this.#ended || this.#held) return;
    const listed = new Set<string>();
    for (const delivery of pending) {
      listed.add(delivery.attemptId);
      if (!this.#written.has(delivery.attemptId)) this.#queue(delivery, false);
    }
    for (const [attemptId, writtenIn] of this.#written) {
      if (writtenIn < generation && !listed.has(attemptId)) this.#written.delete(attemptId);
    }
    this.#afterQueue();
  }

  /** Writes a heartbeat comment. */
  heartbeat(): void {
    this.#enqueue(SSE_HEARTBEAT);
  }

  /** Ends the stream cleanly; the reader gets what was already in the stream's queue first. */
  close(): void {
    if (this.#ended) return;
    // What was delivered this turn and waits for the scheduled pump goes out before the end.
    this.#pump();
    this.#controller.close();
    this.#end();
  }

  #queue(delivery: Delivery, live: boolean): void {
    this.#written.set(delivery.attemptId, this.#generation);
    if (delivery.seq > this.#maxSeq) this.#maxSeq = delivery.seq;
    const bytes = sseEventOfJson(
      'notification',
      sseEventId(this.browserId, delivery.seq),
      deliveryPayloadJson(delivery),
    );
    this.#pending.push({ attemptId: delivery.attemptId, bytes, live });
    if (live) this.#pendingLiveBytes += bytes.byteLength;
  }

  #afterQueue(): void {
    if (this.#ended) return;
    if (this.bufferedBytes > this.#init.maxBufferBytes) {
      // Erroring (not closing) drops the queue and lets the host destroy the socket at once. The
      // code marks it as a cut connection, which hosts such as @hono/node-server treat as one
      // rather than as a server fault to log and answer.
      this.#controller.error(
        Object.assign(new Error('slow reader: stream buffer limit reached'), {
          code: 'ERR_STREAM_PREMATURE_CLOSE',
        }),
      );
      this.#end();
      return;
    }
    // Events delivered in one turn of the event loop (a group of sends commits at once) go to
    // the reader as one chunk: one socket write for all of them instead of one each.
    if (!this.#pumpScheduled) {
      this.#pumpScheduled = true;
      setImmediate(() => {
        this.#pumpScheduled = false;
        this.#pump();
      });
    }
  }

  /** Moves pending events into the stream, as one chunk, while its queue has room. */
  #pump(): void {
    if (this.#ended) return;
    let room = this.#controller.desiredSize ?? 0;
    const start = this.#pendingHead;
    let bytes = 0;
    while (this.#pendingHead < this.#pending.length && room > 0) {
      const event = this.#pending[this.#pendingHead++]!;
      room -= event.bytes.byteLength;
      bytes += event.bytes.byteLength;
      if (event.live) this.#pendingLiveBytes -= event.bytes.byteLength;
    }
    const end = this.#pendingHead;
    if (end === start) return;
    const taken = this.#pending.slice(start, end);
    if (this.#pendingHead === this.#pending.length) {
      this.#pending = [];
      this.#pendingHead = 0;
    }
    let chunk: Uint8Array;
    if (taken.length === 1) {
      chunk = taken[0]!.bytes;
    } else {
      chunk = new Uint8Array(bytes);
      let at = 0;
      for (const event of taken) {
        chunk.set(event.bytes, at);
        at += event.bytes.byteLength;
      }
    }
    this.#controller.enqueue(chunk);
    this.#init.onWritten(taken.map((event) => event.attemptId));
  }

  #enqueue(bytes: Uint8Array): void {
    if (!this.#ended) this.#controller.enqueue(bytes);
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#held = null;
    this.#pending = [];
    this.#written.clear();
    this.#init.onEnd(this);
  }
}
