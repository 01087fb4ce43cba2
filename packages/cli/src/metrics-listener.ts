import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ListenAddress } from './listen-address.js';

/** A listener of its own that answers `GET /metrics` from the registry, and nothing else. */
export interface MetricsListener {
  /** The port it listens on (the real one when 0 was asked for). */
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the metrics listener with `createMetricsHandler(registry)` of `@tidings/metrics`: it
 * shares nothing with the API's listener but the registry.
 */
export function startMetricsListener(
  address: ListenAddress,
  handler: (request: Request) => Promise<Response>,
): Promise<MetricsListener> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: handler, port: address.port, hostname: address.host }, (info: AddressInfo) => {
      server.off('error', reject);
      resolve({
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // A scraper's keep-alive connection would hold the close open until its timeout.
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
