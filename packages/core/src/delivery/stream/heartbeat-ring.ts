/**
 * Something that can be sent a heartbeat, and that keeps its own place in the ring (so that the
 * ring needs no map from member to place: with thousands of streams, every byte per member counts).
 */
export interface RingMember {
  heartbeat(): void;
  /** The slot the member is in; -1 when it is in none. Set only by the ring. */
  ringSlot: number;
  /** Its index in that slot. Set only by the ring. */
  ringIndex: number;
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
 * time (bench/NOTES.md#figures-behind-the-design), and every send waited behind it. The timer runs only while a stream is held.
 */
export class HeartbeatRing<T extends RingMember> {
  readonly #slots: T[][];
  readonly #tickMs: number;
  #cursor = 0;
  #dealt = 0;
  #size = 0;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(heartbeatMs: number) {
    const slots = Math.max(1, Math.min(MAX_SLOTS, Math.floor(heartbeatMs / MIN_TICK_MS)));
    this.#slots = Array.from({ length: slots }, () => []);
    this.#tickMs = heartbeatMs / slots;
  }

  /** Members in the ring. */
  get size(): number {
    return this.#size;
  }

  add(item: T): void {
    if (item.ringSlot !== -1) return;
    const slot = this.#dealt++ % this.#slots.length;
    const members = this.#slots[slot]!;
    item.ringSlot = slot;
    item.ringIndex = members.length;
    members.push(item);
    this.#size++;
    if (this.#timer === null) {
      this.#timer = setInterval(() => this.tick(), this.#tickMs);
      unrefTimer(this.#timer);
    }
  }

  /** Takes a member out in constant time: the slot's last member moves into its place. */
  delete(item: T): void {
    const members = this.#slots[item.ringSlot];
    if (members === undefined || members[item.ringIndex] !== item) return;
    const last = members.pop()!;
    if (last !== item) {
      members[item.ringIndex] = last;
      last.ringIndex = item.ringIndex;
    }
    item.ringSlot = -1;
    item.ringIndex = -1;
    this.#size--;
    if (this.#size === 0 && this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  /** Writes the heartbeats of the next slot. */
  tick(): void {
    const slot = this.#slots[this.#cursor]!;
    this.#cursor = (this.#cursor + 1) % this.#slots.length;
    // A heartbeat may end its stream (a write to a connection that is gone), which takes it out
    // of this slot: walked from the end, a member moved into a freed place was visited already.
    for (let i = slot.length - 1; i >= 0; i--) slot[i]?.heartbeat();
  }
}
