import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventSink, EventSinkListener } from '../ports/event-sink.js';
import { until } from '../testing/until.js';
import { ALREADY_SENT_HEADER, HEAD_SENT, nodeEventStream } from './index.js';

let server: Server | null = null;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

/** A listener that records what its sink tells it. */
function recorder() {
  const seen = { drained: 0, closed: 0 };
  const listener: EventSinkListener = {
    drained: () => seen.drained++,
    closed: () => seen.closed++,
  };
  return { seen, listener };
}

/** A server whose every request opens a sink; resolves with it once a request came. */
async function sinkServer(listener: EventSinkListener) {
  let opened!: (value: { sink: EventSink; response: Response; res: ServerResponse }) => void;
  const first = new Promise<{ sink: EventSink; response: Response; res: ServerResponse }>((resolve) => {
    opened = resolve;
  });
  server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    const { sink, response } = nodeEventStream(res).open(200, { 'Content-Type': 'text/event-stream' }, listener);
    opened({ sink, response, res });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { port, first };
}

function rawGet(port: number) {
  const socket = connect(port, '127.0.0.1');
  socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  return { socket, text: () => text };
}

describe('nodeEventStream', () => {
  it('writes the head, then what the stream writes, and ends the answer; the marker has no body', async () => {
    const { seen, listener } = recorder();
    const { port, first } = await sinkServer(listener);
    const client = rawGet(port);
    const { sink, response, res } = await first;
    expect(response.headers.get(ALREADY_SENT_HEADER)).toBe('true');
    expect(response.body).toBeNull();
    expect(sink.write(new TextEncoder().encode('data: one\n\n'))).toBe(true);
    await until(() => client.text().includes('data: one'));
    expect(client.text()).toMatch(/^HTTP\/1\.1 200 OK\r\nContent-Type: text\/event-stream\r\n/);
    // Node no longer keeps the head it sent, only a short string every stream shares, and
    // still knows that it was sent (Node.js 24.22 flushes the head after the write returns).
    await until(() => (res as unknown as { _header: string })._header === HEAD_SENT);
    expect(res.headersSent).toBe(true);
    expect(client.text()).toContain('\r\nConnection: close\r\n');
    let serverClosed = false;
    client.socket.on('end', () => {
      serverClosed = true;
    });
    sink.end();
    await until(() => client.text().endsWith('0\r\n\r\n'));
    await until(() => seen.closed === 1);
    // The connection ends with the stream: nothing is left idle.
    await until(() => serverClosed);
    client.socket.destroy();
  });

  it('tells the stream once when the client goes away, and then writes nothing', async () => {
    const { seen, listener } = recorder();
    const { port, first } = await sinkServer(listener);
    const client = rawGet(port);
    const { sink } = await first;
    client.socket.destroy();
    await until(() => seen.closed === 1);
    expect(sink.write(new Uint8Array(10))).toBe(false);
    sink.end();
    sink.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.closed).toBe(1);
  });

  it('says to wait when the client does not read, and that it drained once the client reads again', async () => {
    const { seen, listener } = recorder();
    const { port, first } = await sinkServer(listener);
    const client = rawGet(port);
    client.socket.pause();
    const { sink } = await first;
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    let writes = 0;
    while (sink.write(chunk) && writes < 10_000) writes++;
    expect(writes).toBeLessThan(10_000);
    expect(sink.bufferedBytes).toBeGreaterThan(0);
    expect(seen.drained).toBe(0);
    client.socket.resume();
    await until(() => seen.drained === 1);
    sink.destroy();
    await until(() => seen.closed === 1);
  });

  it('under @hono/node-server with its global Response, the answer is written once', async () => {
    const { seen, listener } = recorder();
    const errors: unknown[] = [];
    const listen = getRequestListener(
      (_request, env) => {
        const { sink, response } = nodeEventStream(env.outgoing as ServerResponse).open(
          200,
          { 'X-Test': 'yes' },
          listener,
        );
        sink.write(new TextEncoder().encode('data: hi\n\n'));
        return response;
      },
      { overrideGlobalObjects: true, errorHandler: (error) => void errors.push(error) },
    );
    server = createServer((req, res) => {
      listen(req, res).catch((error: unknown) => errors.push(error));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = rawGet((server.address() as AddressInfo).port);
    await until(() => client.text().includes('data: hi'));
    expect(client.text().match(/HTTP\/1\.1/g)).toHaveLength(1);
    expect(client.text()).toContain('X-Test: yes');
    expect(client.text()).not.toContain(ALREADY_SENT_HEADER);
    expect(errors).toEqual([]);
    client.socket.destroy();
    await until(() => seen.closed === 1);
  });
});
