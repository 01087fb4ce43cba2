// Drives Tidings the way `tidings serve` does, through `serveNode` of `@tidings/core/node`, with
// in-memory stand-ins for Node's request and response: the core sees the same lazy Request (URL,
// headers and a body read from the Node request) and its answer is written the same way, without
// sockets, so that a benchmark measures the handler, not the kernel.
import { serveNode } from '@tidings/core/node';

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
    // Read already, as a body parser would have: the bridge takes it as sent.
    body,
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
    writableLength: 0,
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
 * A request function over a Tidings instance: `request(method, path, headers, body)` resolves
 * with `{ status, text }`; `stream(path, onChunk)` opens a response whose body is read as it comes.
 */
export function inMemoryHttp(tidings) {
  const listener = (req, res) => {
    void serveNode(tidings, req, res, { clientAddress: socket.remoteAddress });
  };
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
