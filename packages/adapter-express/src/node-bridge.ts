import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the bridge reads from a Node request, beyond `IncomingMessage`; Express adds both. */
export interface BridgedIncomingMessage extends IncomingMessage {
  /** The URL as the client sent it, before a router stripped its mount path. */
  originalUrl?: string;
  /** A body a parser mounted earlier (e.g. `express.json()`) has already read. */
  body?: unknown;
}

/** Headers that described the bytes on the wire, and are wrong once a parsed body is re-serialized. */
const WIRE_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

/**
 * Turns a Node request into a Web `Request`: absolute URL from Host and the original URL, every
 * header, the body streamed, and a signal that aborts when the client goes away (`res` closes
 * before the answer was finished).
 */
export function toWebRequest(req: BridgedIncomingMessage, res: ServerResponse): Request {
  const method = req.method ?? 'GET';
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const body = method === 'GET' || method === 'HEAD' ? null : requestBody(req);
  // Pairs, not a Headers object: the Request validates and copies its init headers anyway, so
  // building a Headers first did that work twice.
  const headers: [string, string][] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    // HTTP/2 pseudo-headers (`:path`) are not headers of a Request.
    if (name.startsWith(':')) continue;
    if (body?.reserialized && WIRE_HEADERS.has(name.toLowerCase())) continue;
    headers.push([name, raw[i + 1]!]);
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: controller.signal };
  if (body) {
    init.body = body.stream;
    // A streamed request body needs half duplex in Node's fetch.
    init.duplex = 'half';
  }
  return new Request(requestUrl(req), init);
}

function requestUrl(req: BridgedIncomingMessage): string {
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const path = req.originalUrl ?? req.url ?? '/';
  const host = req.headers.host ?? req.headers[':authority'] ?? 'localhost';
  // Concatenated, not `new URL(path, base)`: a path such as `//evil.test/x` must stay a path.
  try {
    return new URL(`${encrypted ? 'https' : 'http'}://${host}${path}`).href;
  } catch {
    return new URL(`${encrypted ? 'https' : 'http'}://localhost${path.startsWith('/') ? path : `/${path}`}`).href;
  }
}

function requestBody(req: BridgedIncomingMessage): { stream: BodyInit; reserialized: boolean } {
  // A body parser that ran first consumed the stream; rebuild the body from what it parsed.
  if (req.readableEnded && req.body !== undefined) {
    const { body } = req;
    if (typeof body === 'string') return { stream: body, reserialized: true };
    if (body instanceof Uint8Array) return { stream: new Uint8Array(body), reserialized: true };
    return { stream: JSON.stringify(body), reserialized: true };
  }
  return { stream: lazyBodyStream(req), reserialized: false };
}

/**
 * The request body as a Web stream that reads from `req` only when pulled (high water mark 0).
 * Unlike `Readable.toWeb(req)`, it neither starts reading a body nobody asked for nor destroys
 * the socket when cancelled: a core that refuses a body (413) unread or midway still gets its
 * answer out, and the rest can be drained ({@link discardUnreadBody}, or the listener of
 * `@hono/node-server` in the middleware).
 */
function lazyBodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Buffer | string> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        chunks ??= req.iterator({ destroyOnReturn: false });
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === 'string' ? new TextEncoder().encode(value) : new Uint8Array(value));
      },
      async cancel() {
        await chunks?.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/** How much of an unread request body is drained, and for how long, before the connection is cut. */
const drainLimits = { bytes: 64 * 1024 * 1024, ms: 5000 };

/**
 * Lets the rest of a request body the core did not read flow away once the answer is written,
 * so that the client's upload completes, it reads the answer, and the connection can be reused.
 * (Node does this by itself only for a body nobody started to read.) A body that goes on past
 * {@link drainLimits} is cut off with its connection, so that it cannot hold the server forever.
 */
export function discardUnreadBody(req: IncomingMessage): void {
  if (req.readableEnded || req.destroyed) return;
  let drained = 0;
  const cutOff = () => {
    cleanup();
    req.socket.destroy();
  };
  const onData = (chunk: Buffer | string) => {
    drained += chunk.length;
    if (drained > drainLimits.bytes) cutOff();
  };
  const timer = setTimeout(cutOff, drainLimits.ms);
  timer.unref();
  const cleanup = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', cleanup);
    req.off('close', cleanup);
  };
  req.on('data', onData);
  req.on('end', cleanup);
  req.on('close', cleanup);
  req.resume();
}

/** True for answers that should reach the client as they are produced, such as an event stream. */
function isLiveStream(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return type.startsWith('text/event-stream') || response.headers.get('x-accel-buffering') === 'no';
}

/**
 * Writes a Web `Response` to a Node response: status, headers (each Set-Cookie kept apart), and
 * the body streamed chunk by chunk (a body of one chunk in one write). It reads the next chunk only once the socket took the last
 * one (`write` returned true, or 'drain'), so a slow client never makes it buffer the stream, and
 * it cancels the body when the client goes away.
 */
export async function writeWebResponse(response: Response, res: ServerResponse, method = 'GET'): Promise<void> {
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);

  if (response.body === null || method === 'HEAD') {
    await response.body?.cancel();
    res.end();
    return;
  }
  const reader = response.body.getReader();
  let closed = false;
  const onClose = () => {
    closed = true;
    reader.cancel().catch(() => {});
  };
  res.once('close', onClose);
  const live = isLiveStream(response);
  if (live) res.flushHeaders();
  try {
    let next = await reader.read();
    if (!live && !next.done && !closed) {
      // A body that comes in one piece (every JSON answer) is written with res.end(chunk): one
      // write with a Content-Length, not a chunked body and its terminator. Looking one chunk
      // ahead holds at most one chunk, so a streamed body is still paced by the socket.
      const first = next.value;
      next = await reader.read();
      if (next.done) {
        if (!closed) res.end(first);
        return;
      }
      if (!closed && !res.write(first)) await drained(res);
    }
    for (; !next.done && !closed; next = await reader.read()) {
      if (!res.write(next.value)) await drained(res);
    }
    if (!closed) res.end();
  } catch {
    // The body errored midway: the client cannot be told with a status any more, so cut it off.
    if (!closed) res.destroy();
  } finally {
    res.off('close', onClose);
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
