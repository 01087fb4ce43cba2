// The outbound sender: how Tidings sends requests to addresses customers give it (webhook and Web
// Push endpoints). `@tidings/core/node` implements it on node:http, node:https and node:http2
// (`createOutboundSender`); the features that send are given one.

/** One address a host name resolves to, as `dns.lookup` with `{ all: true }` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has; {@link OutboundPolicy.lookup}. */
export type OutboundLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/**
 * What an outbound sender may reach. The defaults are for addresses that customers give Tidings
 * (webhook endpoints, Web Push endpoints): https only, public addresses only.
 */
export interface OutboundPolicy {
  /** Whether `http:` URLs may be sent to; otherwise only `https:`. @default false */
  allowHttp?: boolean;
  /**
   * Whether loopback, private, link-local and other non-public addresses may be reached (and
   * `localhost`). For tests and for operators whose endpoints are on their own network. @default false
   */
  allowPrivateAddresses?: boolean;
  /**
   * Host names that may be reached: an exact name, or `*.example.com` for any name under
   * example.com (not example.com itself). `null` or absent: any host. @default null
   */
  allowedHosts?: readonly string[] | null;
  /** The whole request, from resolving the name to the last byte of the answer read. @default 15000 */
  timeoutMs?: number;
  /** Bytes of the answer's body read at most; the rest is not read (not an error). @default 65536 */
  maxResponseBytes?: number;
  /**
   * How host names are resolved. Every address it gives is checked, and the connection is made
   * to one of those same addresses. @default `dns.lookup(name, { all: true })`
   */
  lookup?: OutboundLookup;
  /**
   * Whether `https:` origins that offer HTTP/2 in the TLS handshake are sent to over it: one
   * connection per origin carries every request at once. An origin that chooses HTTP/1.1 gets the
   * kept-alive HTTP/1.1 connections. @default false
   */
  http2?: boolean;
  /**
   * Certificates (PEM) that `https:` connections trust besides Node's own list: for endpoints
   * behind a private certificate authority. @default none
   */
  ca?: string | readonly string[];
}

/** One request to send. */
export interface OutboundRequest {
  url: string;
  /** @default 'POST' */
  method?: 'POST' | 'PUT' | 'GET' | 'DELETE';
  /** `User-Agent` defaults to `Tidings`; `Content-Length` is always set from the body. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * What came of a request. `answered` is any status, 3xx included: redirects are never followed,
 * so a caller treats a 3xx as a failure. `refused`: the policy kept the request from being sent
 * (the URL, the host, or an address it resolves to). `failed`: no (whole) answer in time, or the
 * network failed.
 */
export type OutboundResult =
  | {
      kind: 'answered';
      status: number;
      /** Header names in lower case; repeated headers joined with `, `. */
      headers: Record<string, string>;
      /** The body as UTF-8, cut at `maxResponseBytes`. */
      body: string;
      /** From the `Retry-After` header (`parseRetryAfter` of `@tidings/core/node`). */
      retryAfterMs: number | null;
      durationMs: number;
    }
  | { kind: 'refused'; reason: string }
  | { kind: 'failed'; reason: 'timeout' | 'network'; message: string; durationMs: number };

/** Sends requests under one {@link OutboundPolicy}. */
export interface OutboundSender {
  /** Sends one request; never rejects. */
  send(request: OutboundRequest): Promise<OutboundResult>;
  /** Closes the idle connections it keeps; a later request opens new ones. */
  close(): void;
}
