// Drives a Web fetch handler the way `tidings serve` does, through @hono/node-server's request
// listener, with in-memory stand-ins for Node's request and response: the handler sees the same
// lightweight Request (URL, headers and a body read from the Node request) and its answer is
// written the same way, without sockets, so that a benchmark measures the handler, not the
// kernel. Undici's own Request and Response cost more than a whole Tidings read.
import { getRequestListener } from '@hono/node-server';

const socket = { encrypted: false, remoteAddress: '127.0.0.1' };

/** A written chunk as text: a string, or bytes (a Uint8Array or a Buffer). */
export function text(chunk) {
  return typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString();
}

/** What the listener reads of an incoming request; the body is handed over whole. */
function incoming(method, url, headers, body) {
  const rawHeaders = [];
  for (const [name, value] of Object.entries(headers)) rawHeaders.push(name, value);
  return {
    method,
    url,
    headers,
    rawHeaders,
    socket,
    rawBody: body,
    readableEnded: true,
    complete: true,
    on() {},
    once() {},
    off() {},
    removeListener() {},
    destroy() {},
  };
}

/** What the listener writes to; `done` resolves when the answer has ended (or, for a stream, began). */
function outgoing(onHead) {
  let finish;
  const done = new Promise((resolve) => {
    finish = resolve;
  });
  const out = {
    statusCode: 0,
    chunks: [],
    headersSent: false,
    writableEnded: false,
    destroyed: false,
    done,
    on: () => out,
    once: () => out,
    off() {},
    removeListener() {},
    setHeader() {},
    getHeader() {},
    flushHeaders() {},
    writeHead(status, headers) {
      out.statusCode = status;
      out.headers = headers;
      out.headersSent = true;
      onHead?.(out);
      return out;
    },
    write(chunk) {
      out.chunks.push(chunk);
      out.onChunk?.(chunk);
      return true;
    },
    end(chunk) {
      if (chunk) out.chunks.push(chunk);
      out.writableEnded = true;
      finish(out);
    },
  };
  return out;
}

/**
 * A request function over `fetch` (with the Hono app's `env` shape, so that the Tidings Hono
 * adapter finds the client address): `request(method, path, headers, body)` resolves with
 * `{ status, text }`; `stream(path, onChunk)` opens a response whose body is read as it comes.
 */
export function inMemoryHttp(fetch) {
  const listener = getRequestListener(fetch);
  return {
    async request(method, path, headers, body) {
      const out = outgoing();
      listener(incoming(method, path, { host: 'bench.local', ...headers }, body), out);
      await out.done;
      return { status: out.statusCode, text: out.chunks.map(text).join('') };
    },
    stream(path, onChunk) {
      return new Promise((resolve) => {
        const out = outgoing((head) => resolve(head));
        out.onChunk = onChunk;
        listener(incoming('GET', path, { host: 'bench.local', accept: 'text/event-stream' }, undefined), out);
      });
    },
  };
}
