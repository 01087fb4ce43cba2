import { Agent, createServer, request as httpRequest } from 'node:http';
import { listening, rawRequest } from '@tidings/test-support/node-servers.js';
import { describe, expect, it } from 'vitest';
import { discardUnreadBody, toWebRequest, writeWebResponse } from './web-bridge.js';

// The bridge's exports on a plain Node server, the way an application without Express uses them.

async function serve(handle: (request: Request) => Promise<Response>) {
  const server = createServer((req, res) => {
    handle(toWebRequest(req, res))
      .then((response) => writeWebResponse(response, res, req.method))
      .then(() => discardUnreadBody(req));
  });
  return { server, base: await listening(server) };
}

const get = rawRequest;

describe('node bridge', () => {
  it('makes a Request of method, URL, headers and body, and writes the answer with each Set-Cookie apart', async () => {
    let seen = '';
    const { base } = await serve(async (request) => {
      seen = `${request.method} ${request.url} ${request.headers.get('x-key')} ${await request.text()}`;
      const headers = new Headers({ 'content-type': 'application/json' });
      headers.append('set-cookie', 'a=1');
      headers.append('set-cookie', 'b=2, c');
      return new Response('{"ok":true}', { status: 201, headers });
    });
    const response = await fetch(`${base}/v1/events?x=1`, { method: 'POST', headers: { 'x-key': 'k' }, body: 'hi' });
    expect(seen).toBe(`POST ${base}/v1/events?x=1 k hi`);
    expect(response.status).toBe(201);
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2, c']);
    expect(response.headers.get('content-length')).toBe('11');
    expect(await response.text()).toBe('{"ok":true}');
  });

  it('is a whole Request beyond what it reads from Node: instanceof, clone, other members', async () => {
    let seen: unknown[] = [];
    const { base } = await serve(async (request) => {
      const copy = request.clone();
      seen = [request instanceof Request, request.cache, request.redirect, await copy.text(), await request.json()];
      return new Response(null, { status: 204 });
    });
    const response = await fetch(`${base}/x`, { method: 'POST', body: '{"a":1}' });
    expect(response.status).toBe(204);
    expect(seen).toEqual([true, 'default', 'follow', '{"a":1}', { a: 1 }]);
  });

  it('streams a body of several chunks, and answers HEAD without one', async () => {
    let cancelled = false;
    const { base } = await serve(async (request) => {
      const parts = ['a', 'b', 'c'];
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          const part = parts.shift();
          if (part) controller.enqueue(new TextEncoder().encode(part));
          else controller.close();
        },
        cancel() {
          cancelled = request.method === 'HEAD';
        },
      });
      return new Response(body);
    });
    const streamed = await get(`${base}/streamed`);
    expect(streamed.headers['transfer-encoding']).toBe('chunked');
    expect(streamed.body).toBe('abc');
    const head = await get(`${base}/streamed`, 'HEAD');
    expect(head.body).toBe('');
    expect(cancelled).toBe(true);
  });

  it('drains the rest of a body that was read partly, so that the connection serves the next request', async () => {
    const { server, base } = await serve(async (request) => {
      const reader = request.body!.getReader();
      const { value } = await reader.read();
      await reader.cancel();
      return new Response(String(value?.byteLength ?? 0), { status: 413 });
    });
    let connections = 0;
    server.on('connection', () => connections++);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (body: Uint8Array) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(`${base}/v1/notifications`, { method: 'POST', agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode!));
        });
        request.on('error', reject);
        request.end(body);
      });
    try {
      expect(await post(new Uint8Array(4 * 1024 * 1024))).toBe(413);
      expect(await post(new Uint8Array(5))).toBe(413);
      expect(connections).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});
