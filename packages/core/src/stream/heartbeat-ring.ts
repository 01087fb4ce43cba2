/** Something that can be sent a heartbeat. */
export interface Beating {
  heartbeat(): void;
}

/** Ticks per heartbeat interval are capped so that a tick is never shorter than this. */
const MIN_TICK_MS = 100;
const MAX_SLOTS = 150;

function unrefTimer(timer: ReturnType<typeof setInterval>): void {
  if (typeof timer === 'object' && timer !== null && 'unref' in timer) timer.unref();
}

/**
 * Spreads heartbeats over the interval. Streams are dealt in turn into slots, and each tick
 * (`heartbeatMs / slots`) writes the heartbeats of one slot, so every stream still gets one at
 * least every `heartbeatMs` (the first one sooner), but the streams of a process never all
 * write at once: with thousands of streams a single burst held the event loop for a noticeable
 * time (bench/README.md#figures-behind-the-design), and every send waited behind it. The timer runs only while a stream is held.
 */
export class HeartbeatRing<T extends Beating> {
  readonly #slots: Set<T>[];
  readonly #slotOf = new Map<T, number>();
  readonly #tickMs: number;
  #cursor = 0;
  #dealt = 0;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(heartbeatMs: number) {
    const slots = Math.max(1, Math.min(MAX_SLOTS, Math.floor(heartbeatMs / MIN_TICK_MS)));
    this.#slots = Array.from({ length: slots }, () => new Set<T>());
    this.#tickMs = heartbeatMs / slots;
  }

  add(item: T): void {
    if (this.#slotOf.has(item)) return;
    const slot = this.#dealt++ % this.#slots.length;
    this.#slots[slot]!.add(item);
    this.#slotOf.set(item, slot);
    if (this.#timer === null) {
      this.#timer = setInterval(() => this.tick(), this.#tickMs);
      unrefTimer(this.#timer);
    }
  }

  delete(item: T): void {
    const slot = this.#slotOf.get(item);
    if (slot === undefined) return;
    this.#slotOf.delete(item);
    this.#slots[slot]!.delete(item);
    if (this.#slotOf.size === 0 && this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  /** Writes the heartbeats of the next slot. */
  tick(): void {
    const slot = this.#slots[this.#cursor]!;
    this.#cursor = (this.#cursor + 1) % this.#slots.length;
    for (const item of slot) item.heartbeat();
  }
}
