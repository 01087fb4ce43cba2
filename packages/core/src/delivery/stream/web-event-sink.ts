import type { EventSink, EventSinkListener } from '../../ports/event-sink.js';

/** Bytes the body stream holds for its reader before `write` says to wait. */
const HIGH_WATER_MARK = 16 * 1024;

/**
 * The sink of a stream answered as a Web `Response` body, for hosts that give the core no
 * connection of their own: the body's queue is measured in bytes, a pull says that it drained,
 * and a cancel that the reader left.
 */
export class WebEventSink implements EventSink {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #done = false;

  constructor(listener: EventSinkListener) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => listener.drained(),
        cancel: () => {
          this.#done = true;
          listener.closed();
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_MARK }),
    );
  }

  write(bytes: Uint8Array): boolean {
    if (this.#done) return false;
    this.#controller.enqueue(bytes);
    return (this.#controller.desiredSize ?? 0) > 0;
  }

  get bufferedBytes(): number {
    return this.#done ? 0 : HIGH_WATER_MARK - (this.#controller.desiredSize ?? 0);
  }

  end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#controller.close();
  }

  destroy(): void {
    if (this.#done) return;
    this.#done = true;
    // Erroring (not closing) drops the queue and lets the host destroy the socket at once. The
    // code marks it as a cut connection, which hosts such as @hono/node-server treat as one
    // rather than as a server fault to log and answer.
    this.#controller.error(
      Object.assign(new Error('slow reader: stream buffer limit reached'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }),
    );
  }
}
