import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

const servers: Server[] = [];

/** Closes, after each test, every server that {@link listening} started. */
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Starts `server` on 127.0.0.1 port 0 (stopped after the test); resolves with its base URL. */
export async function listening(server: Server): Promise<string> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The last server {@link listening} started. */
export function lastServer(): Server {
  const server = servers.at(-1);
  if (!server) throw new Error('no server started');
  return server;
}

/** A request with Node's client, which (unlike fetch) shows the raw response headers. */
export function rawRequest(url: string, method = 'GET') {
  return new Promise<{ headers: IncomingMessage['headers']; body: string }>((resolve, reject) => {
    httpRequest(url, { method }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ headers: response.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}
