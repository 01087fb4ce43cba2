import { createServer } from 'node:http';
import { stubTidings } from '@tidings/core/testing';
import { listening } from '@tidings/test-support/node-servers.js';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { tidingsExpress } from './index.js';

// In a file of its own, so that nothing else in the process touched the globals first.
const { Request: NativeRequest, Response: NativeResponse } = globalThis;

const tidings = stubTidings({
  async fetch(request: Request) {
    const body = `${request.method} ${new URL(request.url).pathname} ${await request.text()}`;
    return new Response(body, { status: 201, headers: { 'content-type': 'text/plain' } });
  },
  handles: (pathname: string) => pathname.startsWith('/v1/'),
});

async function post(options: Parameters<typeof tidingsExpress>[1]) {
  const app = express();
  app.use(tidingsExpress(tidings, options));
  const response = await fetch(`${await listening(createServer(app))}/v1/events`, {
    method: 'POST',
    body: 'hi',
  });
  return `${response.status} ${response.headers.get('content-length')} ${await response.text()}`;
}

describe('overrideGlobalObjects', () => {
  it('by default: leaves the global Request and Response as they are, and answers all the same', async () => {
    expect(await post({})).toBe('201 18 POST /v1/events hi');
    expect(globalThis.Request).toBe(NativeRequest);
    expect(globalThis.Response).toBe(NativeResponse);
  });

  it('false: the same', async () => {
    expect(await post({ overrideGlobalObjects: false })).toBe('201 18 POST /v1/events hi');
    expect(globalThis.Request).toBe(NativeRequest);
    expect(globalThis.Response).toBe(NativeResponse);
  });

  it('true (no longer used): the same, the globals are never replaced', async () => {
    expect(await post({ overrideGlobalObjects: true })).toBe('201 18 POST /v1/events hi');
    expect(globalThis.Request).toBe(NativeRequest);
    expect(globalThis.Response).toBe(NativeResponse);
  });
});
