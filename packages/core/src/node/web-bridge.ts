import type { IncomingMessage, ServerResponse } from 'node:http';
import { delegateToFull } from '../pipeline/http/lazy-web-object.js';
import { textAnswerOf } from '../pipeline/http/responses.js';

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
 * header, the body, and a signal that aborts when the client goes away (`res` closes before the
 * answer was finished). Throws a TypeError for a Host that makes no URL.
 *
 * What the core reads of every request (method, URL, headers, the body whole) is read straight
 * from the Node request; a full `Request` is built only if something asks for more (see
 * {@link NodeRequest}).
 */
export function toWebRequest(req: BridgedIncomingMessage, res: ServerResponse): Request {
  return new NodeRequest(req, res) as unknown as Request;
}

/**
 * A `Request` (its prototype is `Request.prototype`) whose method, URL, headers, body, signal and
 * whole-body reads come from the Node request; any other member builds the full `Request` once
 * and answers from it. Building a full `Request` with a signal and a streamed body for every
 * request costs several times what the core spends on a read (bench/NOTES.md, _The Node bridge_).
 */
class NodeRequest {
  readonly method: string;
  readonly url: string;
  readonly #req: BridgedIncomingMessage;
  readonly #res: ServerResponse;
  readonly #parsedBody: Uint8Array | string | null;
  #headers: Headers | undefined;
  #controller: AbortController | undefined;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  #used = false;
  #full: Request | undefined;

  constructor(req: BridgedIncomingMessage, res: ServerResponse) {
    this.method = req.method ?? 'GET';
    this.url = requestUrl(req);
    this.#req = req;
    this.#res = res;
    this.#parsedBody = this.method === 'GET' || this.method === 'HEAD' ? null : parsedBody(req);
  }

  get headers(): Headers {
    this.#headers ??= new Headers(headerPairs(this.#req, this.#parsedBody !== null));
    return this.#headers;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      const res = this.#res;
      if (res.closed) {
        if (!res.writableFinished) controller.abort();
      } else {
        res.once('close', () => {
          if (!res.writableFinished) controller.abort();
        });
      }
      this.#controller = controller;
    }
    return this.#controller.signal;
  }

  get body(): ReadableStream<Uint8Array> | null {
    // Once the full Request exists, the body is its: it took the stream.
    if (this.#full) return this.#full.body;
    if (this.#stream === undefined) {
      if (this.method === 'GET' || this.method === 'HEAD') this.#stream = null;
      else if (this.#parsedBody !== null) this.#stream = new Blob([this.#parsedBody as BlobPart]).stream();
      else this.#stream = lazyBodyStream(this.#req);
    }
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#full ? this.#full.bodyUsed : this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#full) return this.#full.arrayBuffer();
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    // A stream somebody already took is read from there; otherwise straight from Node.
    if (this.#stream !== undefined) return this.#stream ? new Response(this.#stream).arrayBuffer() : new ArrayBuffer(0);
    if (this.method === 'GET' || this.method === 'HEAD') return new ArrayBuffer(0);
    const parsed = this.#parsedBody;
    const bytes =
      parsed === null ? await readAll(this.#req) : typeof parsed === 'string' ? Buffer.from(parsed) : parsed;
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.arrayBuffer());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** The full `Request`, built once, for the members this class does not answer itself. */
  full(): Request {
    if (!this.#full) {
      const init: RequestInit & { duplex?: 'half' } = {
        method: this.method,
        headers: this.headers,
        signal: this.signal,
      };
      const body = this.#used ? null : this.body;
      if (body) {
        init.body = body;
        // A streamed request body needs half duplex in Node's fetch.
        init.duplex = 'half';
      }
      this.#full = new Request(this.url, init);
    }
    return this.#full;
  }

  static {
    delegateToFull(NodeRequest.prototype, Request.prototype);
  }
}

/** Headers as pairs; with a re-serialized body, without those that described the bytes on the wire. */
function headerPairs(req: IncomingMessage, reserialized: boolean): [string, string][] {
  const headers: [string, string][] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    // HTTP/2 pseudo-headers (`:path`) are not headers of a Request.
    if (name.startsWith(':')) continue;
    if (reserialized && WIRE_HEADERS.has(name.toLowerCase())) continue;
    headers.push([name, raw[i + 1]!]);
  }
  return headers;
}

/**
 * Every byte of a request body, read straight from Node with 'data' listeners, as body parsers
 * do: the request then counts as consumed, and Node has nothing to drain after the answer.
 */
function readAll(req: IncomingMessage): Promise<Buffer> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer | string) => {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    };
    const settle = (error?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', settle);
      req.off('close', onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onEnd = () => settle();
    // A connection that closes before the end of the body: the body broke.
    const onClose = () => settle(new Error('the request closed before its body ended'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', settle);
    req.once('close', onClose);
  });
}

const VALID_HOST = /^(?:[A-Za-z0-9\-._~%]+|\[[0-9A-Fa-f:.]+\])(?::\d{0,5})?$/;

function requestUrl(req: BridgedIncomingMessage): string {
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const path = req.originalUrl ?? req.url ?? '/';
  const host = req.headers.host ?? (req.headers[':authority'] as string | undefined) ?? 'localhost';
  // A name or an address with an optional port, nothing else (no `user@`, no path, no spaces).
  if (!VALID_HOST.test(host)) throw new TypeError('malformed Host header');
  // Concatenated, not `new URL(path, base)`: a path such as `//evil.test/x` must stay a path.
  const scheme = encrypted ? 'https' : 'http';
  try {
    return new URL(`${scheme}://${host}${path}`).href;
  } catch {
    // A malformed Host throws here too, and the request is answered 400 (see serveNode); a
    // request target that is no path (`*`, an absolute form) is taken as a path on that host.
    return new URL(`${scheme}://${new URL(`${scheme}://${host}`).host}${path.startsWith('/') ? path : `/${path}`}`)
      .href;
  }
}

/** A body a parser mounted earlier already read, made bytes or text again; null for none. */
function parsedBody(req: BridgedIncomingMessage): Uint8Array | string | null {
  if (!req.readableEnded || req.body === undefined) return null;
  const { body } = req;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new Uint8Array(body);
  return JSON.stringify(body);
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
 * the body streamed chunk by chunk (a body of one chunk, or the core's own text, in one write).
 * It reads the next chunk only once the socket took the last one (`write` returned true, or
 * 'drain'), so a slow client never makes it buffer the stream, and it cancels the body when the
 * client goes away.
 */
export async function writeWebResponse(response: Response, res: ServerResponse, method = 'GET'): Promise<void> {
  // An answer the core made from a string (every JSON answer) is written as it was made: one
  // writeHead with its headers object and one end() with a Content-Length, without reading the
  // Web headers and body back.
  const answer = textAnswerOf(response);
  if (answer !== undefined && response.status === answer.status) {
    res.writeHead(answer.status, answer.headers);
    res.end(method === 'HEAD' ? undefined : answer.text);
    return;
  }
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
