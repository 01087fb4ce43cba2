import type { BrowserStream } from './browser-stream.js';

/**
 * The open streams of an instance by browser. A browser nearly always has one stream (a second
 * one is a reconnect racing the old one's end), so one stream is kept as itself and only more
 * than one in an array: a collection per browser would cost more than the rest of the entry.
 */
export class StreamsByBrowser {
  readonly #map = new Map<string, BrowserStream | BrowserStream[]>();
  #size = 0;

  /** Open streams. */
  get size(): number {
    return this.#size;
  }

  /** Browsers with at least one open stream. */
  get browsers(): number {
    return this.#map.size;
  }

  add(stream: BrowserStream): void {
    const held = this.#map.get(stream.browserId);
    if (held === undefined) this.#map.set(stream.browserId, stream);
    else if (Array.isArray(held)) {
      if (held.includes(stream)) return;
      held.push(stream);
    } else if (held !== stream) this.#map.set(stream.browserId, [held, stream]);
    else return;
    this.#size++;
  }

  /** Forgets a stream; false when it was not held. */
  delete(stream: BrowserStream): boolean {
    const held = this.#map.get(stream.browserId);
    if (held === stream) {
      this.#map.delete(stream.browserId);
    } else if (Array.isArray(held)) {
      const at = held.indexOf(stream);
      if (at === -1) return false;
      held.splice(at, 1);
      if (held.length === 1) this.#map.set(stream.browserId, held[0]!);
    } else {
      return false;
    }
    this.#size--;
    return true;
  }

  /** Whether the browser has an open stream. */
  has(browserId: string): boolean {
    return this.#map.has(browserId);
  }

  /** The browser's open streams, as a list of its own (closing them while walking it is safe). */
  of(browserId: string): BrowserStream[] {
    const held = this.#map.get(browserId);
    if (held === undefined) return [];
    return Array.isArray(held) ? [...held] : [held];
  }

  /** The ids of the browsers with open streams. */
  browserIds(): string[] {
    return [...this.#map.keys()];
  }

  /** Every open stream, as a list of its own. */
  all(): BrowserStream[] {
    const streams: BrowserStream[] = [];
    for (const held of this.#map.values()) {
      if (Array.isArray(held)) streams.push(...held);
      else streams.push(held);
    }
    return streams;
  }
}
