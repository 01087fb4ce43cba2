import { createServer } from 'node:http';
import type { RequestContext, Tidings } from '@tidings/core';
import { listening } from '@tidings/test-support/node-servers.js';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { serverListener } from './server.js';

/** A Tidings that answers `/v1/…` with what it was handed, or fails when told to. */
function recordingTidings(fail = false) {
  const seen: { url: string; context: RequestContext | undefined }[] = [];
  const tidings = {
    handles: (path: string) => path.startsWith('/v1/'),
    fetch: async (request: Request, context?: RequestContext) => {
      seen.push({ url: request.url, context });
      if (fail) throw new Error('the store is down');
      return Response.json({ ok: true });
    },
  } as unknown as Tidings;
  return { tidings, seen };
}

describe("the standalone server's listener", () => {
  it("sends Tidings' routes through the Node bridge and the rest to the app", async () => {
    const { tidings, seen } = recordingTidings();
    const app = new Hono();
    app.get('/healthz', (c) => c.text('app'));
    const base = await listening(createServer(serverListener(tidings, app, '127.0.0.1')));

    const api = await fetch(`${base}/v1/notifications?limit=1`);
    expect(await api.json()).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe(`${base}/v1/notifications?limit=1`);
    // The bridge's marks: it writes text answers itself and names the socket's address.
    expect(seen[0]!.context).toMatchObject({ writesTextAnswers: true, clientAddress: '127.0.0.1', basePath: '' });
    expect(seen[0]!.context?.eventStream).toBeDefined();

    expect(await (await fetch(`${base}/healthz`)).text()).toBe('app');
    expect(seen).toHaveLength(1);
  });

  it('answers a failure of the core 500 with problem details', async () => {
    const { tidings } = recordingTidings(true);
    const base = await listening(createServer(serverListener(tidings, new Hono(), '127.0.0.1')));
    const answer = await fetch(`${base}/v1/notifications`);
    expect(answer.status).toBe(500);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(await answer.json()).toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});
