import type { z } from 'zod';
import type { EventSink, EventSinkListener } from '../../ports/event-sink.js';
import type { Delivery } from '../../ports/records.js';
import type { readyEventSchema } from '../object-schemas.js';
import { deliveryEventBytes } from './delivery.js';
import type { RingMember } from './heartbeat-ring.js';
import { SSE_HEARTBEAT, sseEvent, sseEventId, sseRetry } from './sse.js';

/**
 * The `ready` event's data. `browser_secret` is present only when the stream registered the
 * browser; a resume does not repeat it.
 */
export type ReadyPayload = z.infer<typeof readyEventSchema>;

/**
 * What every stream reports to: one object shared by all the streams of an instance, so that a
 * stream holds no callbacks of its own (an open stream's memory is what an idle connection costs).
 */
export interface StreamOwner {
  /** Bytes a stream may hold for a reader that does not keep up; past it the stream is cut. */
  readonly maxBufferBytes: number;
  /** Called with the ids of attempts written to a stream, to record them as `sent`. */
  written(attemptIds: string[]): void;
  /** Called once when a stream ends, whatever ended it. */
  ended(stream: BrowserStream): void;
  /**
   * Called when a stream that a catch-up passed over while it read its backlog has queued it:
   * the catch-up is to be done now, since the backlog may have been read too early for it.
   */
  caughtUpWhileOpening?(stream: BrowserStream): void;
}

/** What a stream is. */
export interface BrowserStreamInit {
  browserId: string;
  projectId: string;
  owner: StreamOwner;
}

/** An event waiting for the connection: encoded once, with the attempt it carries, if any. */
interface PendingEvent {
  attemptId: string | null;
  bytes: Uint8Array;
  /** Live events count toward the buffer limit; the backlog is the store's and is paced by the reader. */
  live: boolean;
}

const NOT_ENDED = 0;
const ENDED = 1;

/**
 * One open event stream of one browser. Events wait in a queue of their own and go to the sink
 * while the connection takes them, so a large backlog on resume is written at the reader's pace.
 * Live events that pile up for a reader that does not keep up count against the owner's
 * `maxBufferBytes`; past it the connection is cut and the queue dropped instead of growing: the
 * browser resumes later and gets every attempt that is not final again.
 *
 * Everything a stream needs only now and then (the queue, the attempts it wrote) is made when
 * first needed, and the stream reports to its owner rather than through callbacks: ten thousand
 * idle streams should cost little more than their sockets.
 */
export class BrowserStream implements EventSinkListener, RingMember {
  readonly browserId: string;
  readonly projectId: string;
  /** Where the heartbeat ring keeps this stream. */
  ringSlot = -1;
  ringIndex = -1;
  readonly #owner: StreamOwner;
  #sink: EventSink | null = null;
  #state = NOT_ENDED;
  /** While the backlog is read from the store, live deliveries wait here. */
  #held: Delivery[] | null = [];
  /** A catch-up passed over the stream while it read its backlog: it is owed one once open. */
  #owedCatchUp = false;
  /**
   * What this stream wrote, by the browser's sequence, which the store numbers without gaps: every
   * attempt up to `#floor` was written here (or was final when the backlog was read), except the
   * ones in `#missing`, which a gap skipped and which may still come (from the hub, late, or from a
   * catch-up). A delivery that arrives twice (from the hub and from a catch-up) is written once,
   * and the stream holds nothing per attempt it wrote: only per attempt it may still miss.
   */
  #floor = 0;
  /** The sequence the browser resumed from: no gap is counted below it. */
  #resumedAt = 0;
  /** Sequences a gap skipped, with the catch-up generation in which they went missing. */
  #missing: Map<number, number> | null = null;
  /** A gap too long to list: from this generation on, until a catch-up after it, nothing below the floor is checked. */
  #unchecked = -1;
  #generation = 0;
  #pending: PendingEvent[] | null = null;
  #pendingHead = 0;
  #pendingLiveBytes = 0;
  /** The sink said to wait: nothing is written until it drains. */
  #waiting = false;
  #pumpScheduled = false;

  constructor(init: BrowserStreamInit) {
    this.#owner = init.owner;
    this.browserId = init.browserId;
    this.projectId = init.projectId;
  }

  /** True once the stream has ended. */
  get ended(): boolean {
    return this.#state === ENDED;
  }

  /** Bytes of live events held for the reader: in the connection's buffer and waiting behind it. */
  get bufferedBytes(): number {
    if (this.#state === ENDED) return 0;
    return (this.#sink?.bufferedBytes ?? 0) + this.#pendingLiveBytes;
  }

  /** Queues the `retry:` advice and the `ready` event; they go out first once a sink is attached. */
  open(ready: ReadyPayload, retryMs: number, sequence: number): void {
    this.#resumedAt = sequence;
    this.#push(null, sseRetry(retryMs), false);
    this.#push(null, sseEvent('ready', sseEventId(this.browserId, sequence), ready), false);
  }

  /**
   * Starts writing to the connection: what is queued goes out at once, in one write when it
   * fits, so that the head of the answer and its first events leave together.
   */
  attach(sink: EventSink): void {
    if (this.#state === ENDED) {
      sink.end();
      return;
    }
    this.#sink = sink;
    this.#pump();
  }

  /** Queues the backlog read from the store, then what arrived live meanwhile (without repeats). */
  replay(backlog: readonly Delivery[]): void {
    const held = this.#held ?? [];
    this.#held = null;
    // The backlog is every pending attempt at the time of the read: one that is not in it and
    // comes before its last is final, so the floor moves past it without a gap.
    for (const delivery of backlog) {
      this.#queue(delivery, false);
      if (delivery.seq > this.#floor) this.#floor = delivery.seq;
    }
    for (const delivery of held) if (this.#claim(delivery.seq)) this.#queue(delivery, true);
    this.#afterQueue();
    if (this.#owedCatchUp && this.#state !== ENDED) {
      this.#owedCatchUp = false;
      this.#owner.caughtUpWhileOpening?.(this);
    }
  }

  /**
   * Queues one live delivery (or holds it while the backlog is being read), unless the stream
   * wrote it already. Returns true when its sequence shows a gap: a delivery before it may have
   * been lost on the way (or was final before it could be sent), and the store should be asked.
   */
  deliver(delivery: Delivery): boolean {
    if (this.#state === ENDED) return false;
    if (this.#held) {
      this.#held.push(delivery);
      return false;
    }
    const gap = delivery.seq > Math.max(this.#floor, this.#resumedAt) + 1;
    if (!this.#claim(delivery.seq)) return false;
    this.#queue(delivery, true);
    this.#afterQueue();
    return gap;
  }

  /** True while the backlog is being read: a catch-up has nothing to add yet. */
  get opening(): boolean {
    return this.#held !== null;
  }

  /**
   * A catch-up passes over the stream while it reads its backlog; the read may have begun before
   * what the catch-up is for (the hub receiving the browser's messages only now), so the owner is
   * asked for another once the backlog is queued ({@link StreamOwner.caughtUpWhileOpening}).
   */
  passedOverWhileOpening(): void {
    if (this.#held !== null) this.#owedCatchUp = true;
  }

  /**
   * The seq after which a catch-up must list this stream's pending deliveries: it wrote every
   * one up to it, except missing ones, which lie above. 0 (list everything) after a gap too long
   * to list.
   */
  get catchUpAfter(): number {
    if (this.#unchecked !== -1) return 0;
    if (this.#missing) return Math.min(...this.#missing.keys()) - 1;
    return this.#floor;
  }

  /** Starts a catch-up: returns the generation to hand to {@link catchUp} with what the store lists. */
  beginCatchUp(): number {
    return ++this.#generation;
  }

  /**
   * Writes the pending deliveries the store listed that this stream has not written, and forgets
   * the missing ones that the store does not list: they were final. Ones that went missing after
   * the read began (of this `generation`) are kept: the read may have been too early to list them.
   */
  catchUp(pending: readonly Delivery[], generation: number): void {
    if (this.#state === ENDED || this.#held) return;
    const listed = new Set<number>();
    for (const delivery of pending) {
      listed.add(delivery.seq);
      if (this.#claim(delivery.seq)) this.#queue(delivery, false);
    }
    const missing = this.#missing;
    if (missing) {
      for (const [seq, missingSince] of missing) {
        if (missingSince < generation && !listed.has(seq)) missing.delete(seq);
      }
      if (missing.size === 0) this.#missing = null;
    }
    if (this.#unchecked !== -1 && this.#unchecked < generation) this.#unchecked = -1;
    this.#afterQueue();
  }

  /**
   * Whether the attempt of `seq` is to be written: it comes after everything written so far (the
   * sequences it skips are then missing), or it is a missing one.
   */
  #claim(seq: number): boolean {
    if (seq > this.#floor) {
      const from = Math.max(this.#floor, Math.min(this.#resumedAt, seq - 1)) + 1;
      if (seq - from > MAX_LISTED_GAP) {
        this.#unchecked = this.#generation;
      } else if (seq > from) {
        this.#missing ??= new Map();
        for (let missingSeq = from; missingSeq < seq; missingSeq++) this.#missing.set(missingSeq, this.#generation);
      }
      this.#floor = seq;
      return true;
    }
    if (this.#missing?.delete(seq)) {
      if (this.#missing.size === 0) this.#missing = null;
      return true;
    }
    return this.#unchecked !== -1;
  }

  /** Writes a heartbeat comment (behind what is queued, if anything is). */
  heartbeat(): void {
    if (this.#state === ENDED || this.#sink === null) return;
    if (this.#pending !== null) this.#push(null, SSE_HEARTBEAT, false);
    else if (!this.#sink.write(SSE_HEARTBEAT)) this.#waiting = true;
  }

  /** Queues an event outside the browser's sequence (an inbox update), in order with the rest. */
  event(bytes: Uint8Array): void {
    if (this.#state === ENDED) return;
    this.#push(null, bytes, false);
    this.#afterQueue();
  }

  /** Ends the stream cleanly; the reader gets what the connection was given first. */
  close(): void {
    if (this.#state === ENDED) return;
    // What was delivered this turn and waits for the scheduled pump goes out before the end.
    this.#waiting = false;
    this.#pump();
    this.#sink?.end();
    this.#end();
  }

  /** The sink took what it held: write what waits. */
  drained(): void {
    this.#waiting = false;
    this.#pump();
  }

  /** The connection is gone. */
  closed(): void {
    this.#end();
  }

  #queue(delivery: Delivery, live: boolean): void {
    this.#push(delivery.attemptId, deliveryEventBytes(this.browserId, delivery), live);
  }

  #push(attemptId: string | null, bytes: Uint8Array, live: boolean): void {
    this.#pending ??= [];
    this.#pending.push({ attemptId, bytes, live });
    if (live) this.#pendingLiveBytes += bytes.byteLength;
  }

  #afterQueue(): void {
    if (this.#state === ENDED) return;
    if (this.bufferedBytes > this.#owner.maxBufferBytes) {
      this.#sink?.destroy();
      this.#end();
      return;
    }
    // Events delivered in one turn of the event loop (a group of sends commits at once) go to
    // the connection as one chunk: one socket write for all of them instead of one each.
    if (!this.#pumpScheduled && this.#sink !== null) {
      this.#pumpScheduled = true;
      setImmediate(() => {
        this.#pumpScheduled = false;
        this.#pump();
      });
    }
  }

  /**
   * Writes queued events to the sink while it takes them, each write one chunk of up to about a
   * socket's buffer (a large backlog goes in pieces, the next when the previous one drained).
   */
  #pump(): void {
    const sink = this.#sink;
    if (sink === null) return;
    while (this.#state !== ENDED && !this.#waiting && this.#pending !== null) {
      const pending = this.#pending;
      const start = this.#pendingHead;
      let end = start;
      let bytes = 0;
      let live = 0;
      const attemptIds: string[] = [];
      while (end < pending.length && bytes < WRITE_CHUNK_BYTES) {
        const event = pending[end++]!;
        bytes += event.bytes.byteLength;
        if (event.live) live += event.bytes.byteLength;
        if (event.attemptId !== null) attemptIds.push(event.attemptId);
      }
      if (end === pending.length) {
        this.#pending = null;
        this.#pendingHead = 0;
      } else {
        this.#pendingHead = end;
      }
      this.#pendingLiveBytes -= live;
      if (!sink.write(end - start === 1 ? pending[start]!.bytes : concat(pending, start, end, bytes))) {
        this.#waiting = true;
      }
      if (attemptIds.length > 0) this.#owner.written(attemptIds);
    }
  }

  #end(): void {
    if (this.#state === ENDED) return;
    this.#state = ENDED;
    this.#held = null;
    this.#pending = null;
    this.#pendingLiveBytes = 0;
    this.#missing = null;
    this.#owner.ended(this);
  }
}

/** Past this many missing sequences, a gap is not listed one by one (a hub that lost a great deal). */
const MAX_LISTED_GAP = 1_000;

/** The most one write to the connection carries: about what a socket takes before it says to wait. */
const WRITE_CHUNK_BYTES = 16 * 1024;

/** The bytes of `events[start..end)` as one chunk of `length` bytes. */
function concat(events: readonly PendingEvent[], start: number, end: number, length: number): Uint8Array {
  const chunk = new Uint8Array(length);
  let at = 0;
  for (let i = start; i < end; i++) {
    chunk.set(events[i]!.bytes, at);
    at += events[i]!.bytes.byteLength;
  }
  return chunk;
}
