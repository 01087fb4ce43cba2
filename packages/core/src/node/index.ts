import type { ServerResponse } from 'node:http';
import type { EventSink, EventSinkListener, EventStreamTarget, OpenedEventStream } from '../ports/event-sink.js';

/**
 * The header by which `@hono/node-server` (under both adapters) knows that an answer was written
 * straight to the Node response and must not be written again.
 */
export const ALREADY_SENT_HEADER = 'x-hono-already-sent';

/** Where a response keeps the sink writing to it, so that its events need no closures. */
const sinkKey = Symbol('tidings.eventSink');

type HeldResponse = ServerResponse & { [sinkKey]?: NodeEventSink };

function onDrain(this: HeldResponse): void {
  this[sinkKey]?.listener.drained();
}

function onClose(this: HeldResponse): void {
  const sink = this[sinkKey];
  this[sinkKey] = undefined;
  sink?.listener.closed();
}

/** A stream written to a Node `ServerResponse`: its own buffer and its `drain` are the backpressure. */
class NodeEventSink implements EventSink {
  constructor(
    readonly response: HeldResponse,
    readonly listener: EventSinkListener,
  ) {}

  write(bytes: Uint8Array): boolean {
    const { response } = this;
    if (response.destroyed || response.writableEnded) return false;
    return response.write(bytes);
  }

  get bufferedBytes(): number {
    return this.response.writableLength;
  }

  end(): void {
    if (!this.response.writableEnded) this.response.end();
  }

  destroy(): void {
    this.response.destroy();
  }
}

/**
 * The event stream target of a request served by `node:http` (or anything that hands over its
 * `ServerResponse`): an open stream then costs the response and a small sink, and its events
 * go to the socket with `response.write`. Pass it as `eventStream` to `tidings.fetch`.
 *
 * The `Response` that `fetch` then resolves with carries {@link ALREADY_SENT_HEADER} and no
 * body: `@hono/node-server` writes nothing for it; any other host must not write it either.
 */
export function nodeEventStream(response: ServerResponse): EventStreamTarget {
  return {
    open(status: number, headers: Record<string, string>, listener: EventSinkListener): OpenedEventStream {
      const held = response as HeldResponse;
      const sink = new NodeEventSink(held, listener);
      held[sinkKey] = sink;
      held.on('drain', onDrain);
      held.on('close', onClose);
      // A stream's connection is never used for another request: closed with the stream, it is
      // let go of as each stream ends, rather than left idle for a shutdown to close in one go.
      held.writeHead(status, { ...headers, Connection: 'close' });
      flattenHead(held);
      return { sink, response: alreadySent() };
    },
  };
}

/**
 * Node keeps the head it wrote (`_header`) for as long as the response is open, as the string
 * it was built into header by header: a rope of some forty pieces, 1.3 KB per open stream. A
 * flat copy of it is one string of its length. Done only where the field is what it has long
 * been; elsewhere nothing changes but the memory.
 */
function flattenHead(response: ServerResponse): void {
  const internal = response as unknown as { _header?: unknown };
  if (typeof internal._header === 'string') internal._header = flat(internal._header);
}

/** A copy of `text` in one piece (a rope read through a Buffer comes back flat). */
function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}

/**
 * A bodiless answer marked as written. Its body is read once here: `@hono/node-server`'s
 * lightweight `Response` (when it replaced the global one) otherwise takes a fast path for a
 * bodiless answer that writes the head without looking at the marker, a second time.
 */
function alreadySent(): Response {
  const marker = new Response(null, { headers: { [ALREADY_SENT_HEADER]: 'true' } });
  void marker.body;
  return marker;
}
