import { validateHeaderName, validateHeaderValue } from 'node:http';
import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  constants,
  connect as http2Connect,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2';
import { isIP, type LookupFunction } from 'node:net';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';

/** A whole answer read over HTTP/2. */
export interface Http2Answer {
  status: number;
  /** Header names in lower case (as HTTP/2 has them); repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: string;
}

/** One request, its URL checked and its headers prepared by the sender. */
export interface Http2Request {
  url: URL;
  /** The host to connect to: the URL's host name, without brackets for IPv6. */
  host: string;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  maxResponseBytes: number;
  /** Called at once with how to give up the request (the sender's timeout calls it). */
  onAbort: (abort: () => void) => void;
}

/**
 * HTTP/2 connections to `https:` origins that offer it, one per origin, each carrying many
 * requests at once. `request` resolves `'http1'` when the origin chose HTTP/1.1 in the TLS
 * handshake (ALPN), and the sender then sends over its HTTP/1.1 connections, as it does for every
 * later request to that origin for {@link HTTP1_REMEMBERED_MS}.
 */
export interface Http2Connections {
  request(request: Http2Request): Promise<Http2Answer | 'http1'>;
  close(): void;
}

/** How long an origin that answered the handshake with HTTP/1.1 is sent to over HTTP/1.1 without asking again. */
export const HTTP1_REMEMBERED_MS = 60 * 60 * 1000;

/**
 * The headers HTTP/2 forbids (RFC 9113, 8.2.2) or replaces with pseudo-headers: a caller's
 * `Host` becomes `:authority`, which is the URL's own.
 */
const NOT_SENT_OVER_HTTP2 = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/**
 * The connections of one sender. `lookup` is the sender's checking lookup, so a connection is
 * made only to an address its policy allows, and stays on it; `idleMs` closes a connection that
 * carried nothing for that long; `ca` is what the sender's `https:` connections trust.
 */
export function createHttp2Connections(options: {
  lookup: LookupFunction;
  idleMs: number;
  ca: readonly string[] | undefined;
}): Http2Connections {
  const ready = new Map<string, ClientHttp2Session>();
  const connecting = new Map<string, Promise<ClientHttp2Session | 'http1'>>();
  const http1Until = new Map<string, number>();
  const open = new Set<ClientHttp2Session | TLSSocket>();

  /** A TLS connection offering h2 first; the session over it, or 'http1' when the server chose otherwise. */
  function connect(url: URL, host: string, onAbort: Http2Request['onAbort']): Promise<ClientHttp2Session | 'http1'> {
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({
        host,
        port: url.port === '' ? 443 : Number(url.port),
        // SNI carries a name, never an address.
        ...(isIP(host) === 0 ? { servername: host } : {}),
        ALPNProtocols: ['h2', 'http/1.1'],
        lookup: options.lookup,
        ...(options.ca ? { ca: [...options.ca] } : {}),
      });
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      onAbort(() => socket.destroy());
      socket.once('error', reject);
      socket.once('secureConnect', () => {
        socket.off('error', reject);
        open.delete(socket);
        if (socket.alpnProtocol !== 'h2') {
          socket.destroy();
          resolve('http1');
          return;
        }
        const session = http2Connect(url.origin, { createConnection: () => socket });
        open.add(session);
        ready.set(url.origin, session);
        // Never keeps the process alive; a request in flight has its timeout's timer for that.
        session.unref();
        session.setTimeout(options.idleMs, () => session.close());
        const forget = () => {
          open.delete(session);
          if (ready.get(url.origin) === session) ready.delete(url.origin);
        };
        session.once('close', forget);
        // After a GOAWAY the streams it started carry on; new requests open a new connection.
        session.once('goaway', forget);
        // A session's error also fails its open streams, each of which reports it.
        session.on('error', forget);
        resolve(session);
      });
    });
  }

  /** The origin's open session, the one being connected, or a new connection. */
  async function sessionFor(url: URL, host: string, onAbort: Http2Request['onAbort']) {
    const kept = ready.get(url.origin);
    if (kept && !kept.closed && !kept.destroyed) return kept;
    let pending = connecting.get(url.origin);
    if (!pending) {
      pending = connect(url, host, onAbort).finally(() => connecting.delete(url.origin));
      connecting.set(url.origin, pending);
    }
    const session = await pending;
    if (session === 'http1') http1Until.set(url.origin, Date.now() + HTTP1_REMEMBERED_MS);
    return session;
  }

  return {
    async request(request) {
      const { url } = request;
      const until = http1Until.get(url.origin);
      if (until !== undefined) {
        if (until > Date.now()) return 'http1';
        http1Until.delete(url.origin);
      }
      // A request the service did not process (refused, or cut off by its GOAWAY) is sent once
      // more, on a connection that is still open or a new one.
      for (let tries = 1; ; tries++) {
        const session = await sessionFor(url, request.host, request.onAbort);
        if (session === 'http1') return 'http1';
        try {
          return await exchange(session, request);
        } catch (error) {
          if (tries === 1 && error instanceof NotProcessed) continue;
          throw error;
        }
      }
    },
    close() {
      for (const connection of open) connection.destroy();
      open.clear();
      ready.clear();
      connecting.clear();
      http1Until.clear();
    },
  };
}

/** A request the service refused before processing it (RFC 9113, 8.7): safe to send again. */
class NotProcessed extends Error {}

/** Node's codes for a request it could not start on a session that is going away. */
const SESSION_GONE = new Set(['ERR_HTTP2_GOAWAY_SESSION', 'ERR_HTTP2_INVALID_SESSION']);

/** Sends one request on `session` and reads its answer, at most `maxResponseBytes` of the body. */
function exchange(session: ClientHttp2Session, request: Http2Request): Promise<Http2Answer> {
  const headers: OutgoingHttpHeaders = {
    ':method': request.method,
    ':path': `${request.url.pathname}${request.url.search}`,
  };
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (NOT_SENT_OVER_HTTP2.has(lower)) continue;
    // HTTP/2 would carry a line break in a value; HTTP/1.1's rules refuse it, and every other
    // character neither may send. They throw; the sender words the refusal.
    validateHeaderName(lower);
    validateHeaderValue(lower, value);
    headers[lower] = value;
  }
  return new Promise((resolve, reject) => {
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(headers, { endStream: request.body === undefined });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      reject(typeof code === 'string' && SESSION_GONE.has(code) ? new NotProcessed(String(code)) : error);
      return;
    }
    request.onAbort(() => stream.close(constants.NGHTTP2_CANCEL));
    let status = 0;
    let answerHeaders: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let length = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve({ status, headers: answerHeaders, body: new TextDecoder().decode(Buffer.concat(chunks)) });
    };
    stream.on('response', (received) => {
      status = Number(received[':status'] ?? 0);
      answerHeaders = plainHeaders(received);
    });
    stream.on('data', (chunk: Buffer) => {
      if (done) return;
      const room = request.maxResponseBytes - length;
      if (chunk.length >= room) {
        chunks.push(chunk.subarray(0, room));
        length = request.maxResponseBytes;
        // The rest is not read: this stream is cancelled, the connection carries on.
        stream.close(constants.NGHTTP2_CANCEL);
        finish();
        return;
      }
      chunks.push(chunk);
      length += chunk.length;
    });
    stream.on('end', finish);
    // Reset with REFUSED_STREAM before any answer: the service did not process it.
    const refused = () => status === 0 && stream.rstCode === constants.NGHTTP2_REFUSED_STREAM;
    stream.on('error', (error) => {
      if (!done) {
        done = true;
        const code = (error as { code?: unknown }).code;
        reject(
          refused() || (typeof code === 'string' && SESSION_GONE.has(code)) ? new NotProcessed(String(code)) : error,
        );
      }
    });
    stream.on('close', () => {
      if (!done) {
        done = true;
        const message = `the stream closed before the answer was whole (code ${stream.rstCode ?? 0})`;
        reject(refused() ? new NotProcessed(message) : new Error(message));
      }
    });
    if (request.body !== undefined) stream.end(request.body);
  });
}

/** The answer's headers without pseudo-headers, repeated ones joined. */
function plainHeaders(received: IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(received)) {
    if (name.startsWith(':') || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}
