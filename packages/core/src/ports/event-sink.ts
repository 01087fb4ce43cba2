/**
 * Where an open event stream writes its bytes. The core frames the events and decides what to
 * write when; how the bytes reach the socket is the host's. Without a target from the host the
 * core answers with a Web `ReadableStream` body (any runtime); a host on `node:http` hands in a
 * target that writes to its `ServerResponse` directly (`@tidings/core/node`), which holds an open
 * stream in less memory: no `Response`, no body stream and no read loop per connection.
 */
export interface EventSink {
  /**
   * Writes bytes after those written before. Returns false once the connection holds as much as
   * it wants: the stream then waits for {@link EventSinkListener.drained} before it writes more.
   */
  write(bytes: Uint8Array): boolean;
  /** Bytes written and not yet taken by the connection. */
  readonly bufferedBytes: number;
  /** Ends the answer after what was written. */
  end(): void;
  /** Drops what is buffered and cuts the connection at once (a reader that does not keep up). */
  destroy(): void;
}

/** What a sink tells the stream that writes to it. */
export interface EventSinkListener {
  /** The connection took what was buffered: more may be written. */
  drained(): void;
  /** The connection is gone: the reader left, or it was cut. Called at most once. */
  closed(): void;
}

/**
 * An event stream answer on a connection the host holds: passed to `tidings.fetch` as the
 * request context's `eventStream`. The core calls `open` only for an answer that is an event
 * stream, after every check passed, with the status and every header of the answer.
 */
export interface EventStreamTarget {
  /**
   * Writes the status and the headers. Returns the sink for the body, and the `Response` that
   * `fetch` resolves with instead, which tells the host that the answer is being written already.
   */
  open(status: number, headers: Record<string, string>, listener: EventSinkListener): OpenedEventStream;
}

/** An event stream answer begun on the host's connection. */
export interface OpenedEventStream {
  sink: EventSink;
  /** What `fetch` answers the host with: a marker it knows not to write. */
  response: Response;
}
