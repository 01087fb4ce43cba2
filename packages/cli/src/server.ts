import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createTidings, type Store, type Tidings, TidingsError, type TidingsOptions } from '@tidings/core';
import { tidingsHono } from '@tidings/hono';
import { Hono } from 'hono';
import { registerDemoPage } from './demo.js';
import { type DemoCredentials, demoFilePath, ensureDemo, savesDemoFile } from './demo-setup.js';
import { openStore, storeTarget } from './open-store.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** The SQLite database file, created if missing, or a `postgres://` URL (`?schema=` names the schema). */
  db: string;
  /** Port to listen on; 0 picks a free one. @default 8787 */
  port?: number;
  /** Address to bind. @default '127.0.0.1' */
  host?: string;
  /** Tidings options besides the store. @default {} */
  tidings?: Omit<TidingsOptions, 'store'>;
  /** Create (on an empty store) or load the demo account, project and keys, and serve /demo. @default false */
  demo?: boolean;
  /** How long open connections may take to finish once closing starts, in milliseconds. @default 3000 */
  shutdownGraceMs?: number;
  /**
   * `'full'`: a 201 means the send is on disk, power loss included. `'normal'`: faster sends that
   * survive a crash of the process, not a power loss (the SQLite store's `synchronous`). @default 'full'
   */
  sqliteSynchronous?: 'full' | 'normal';
}

/** A server started by {@link startServer}. */
export interface RunningServer {
  /** `http://HOST:PORT`, with the real port. */
  url: string;
  port: number;
  tidings: Tidings;
  /** The demo credentials with `demo`; null without it, or when the store is not the demo's. */
  demo: { credentials: DemoCredentials; created: boolean; file: string | null } | null;
  /** Stops accepting, closes open streams, waits for requests in flight, closes the store. */
  close(): Promise<void>;
}

/** `host` as it goes in a URL: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The standalone app: `/healthz`, the demo page with `demo`, and Tidings under `/v1`. */
export function createServerApp(tidings: Tidings, demo: DemoCredentials | null): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  if (demo) registerDemoPage(app, { tidings, demo });
  app.route('/', tidingsHono(tidings));
  return app;
}

function openTidings(store: Store, options: Omit<TidingsOptions, 'store'>): Tidings {
  try {
    return createTidings({ ...options, store });
  } catch (error) {
    // createTidings refuses bad configuration with a TypeError: the operator's to fix.
    if (error instanceof TypeError) throw new TidingsError('VALIDATION_FAILED', error.message);
    throw error;
  }
}

/** Opens the store, builds Tidings and the app, and listens. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { db, port = 8787, host = '127.0.0.1', shutdownGraceMs = 3000 } = options;
  const store = await openStore(storeTarget(db), 'serve', { sqliteSynchronous: options.sqliteSynchronous ?? 'full' });
  let tidings: Tidings | undefined;
  try {
    tidings = openTidings(store, options.tidings ?? {});
    const demo = options.demo ? await ensureDemo(tidings.admin, db) : null;
    const app = createServerApp(tidings, demo?.credentials ?? null);
    const { server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>(
      (resolve, reject) => {
        const server = serve({ fetch: app.fetch, port, hostname: host }, (address) => resolve({ server, address }));
        server.once('error', reject);
      },
    );
    const running: Tidings = tidings;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${urlHost(host)}:${address.port}`,
      port: address.port,
      tidings: running,
      demo: demo && { ...demo, file: savesDemoFile(db) ? demoFilePath(db) : null },
      close() {
        closing ??= (async () => {
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          // Ends the event streams, which server.close() would otherwise wait for forever.
          await running.close();
          // server.close() drops idle keep-alive connections only once, when called; a connection
          // whose stream just ended becomes idle later, and would hold it open until its timeout.
          const idle = setInterval(() => {
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          }, 25);
          const force = setTimeout(() => {
            if ('closeAllConnections' in server) server.closeAllConnections();
          }, shutdownGraceMs);
          await closed;
          clearInterval(idle);
          clearTimeout(force);
          await store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await tidings?.close();
    await store.close();
    throw error;
  }
}
