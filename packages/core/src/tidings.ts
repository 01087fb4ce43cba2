import type { AdminApi } from './admin.js';
import type { TidingsOptions } from './options.js';

/** What the host tells the core about a request that the `Request` itself cannot. */
export interface RequestContext {
  /** The socket's remote address; `X-Forwarded-For` is believed only as `trustProxy` says. */
  clientAddress?: string;
  /** The path Tidings is mounted under, e.g. `/notify`; it is stripped before routing. @default '' */
  basePath?: string;
}

/** A Tidings instance: a Web-standard request handler, the admin API, and its lifecycle. */
export interface Tidings {
  /** Answers one request. Never throws: every failure is a problem response. */
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  /** True when `pathname` (after the base path) is one Tidings answers, so hosts can pass others on. */
  handles(pathname: string): boolean;
  /** The typed operations of the dashboard. */
  admin: AdminApi;
  /** Creates a connect token for a recipient from trusted server code, without an HTTP round trip. */
  createConnectToken(input: { projectId: string; recipient: string; ttlSeconds?: number }): Promise<{
    object: 'connect_token';
    token: string;
    recipient: string;
    expires_at: string;
    connect_url: string;
  }>;
  /** Runs one sweep: expires attempts past their ttl, reaps stale browsers, purges old records. */
  sweep(): Promise<void>;
  /** Closes open streams and stops timers. The store is the caller's to close. */
  close(): Promise<void>;
}

export declare function createTidings(options: TidingsOptions): Tidings;
