import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quietPeriod } from '@tidings/core/testing';
import {
  assertBuilt,
  createProjectWithKeys,
  type ServeProcess,
  startServe,
} from '@tidings/test-support/cli-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What `tidings serve` logs, read from its stderr: a client going away is no server error, and
 * no key, token or secret is ever written, whatever the requests carry.
 */
let dir: string;
let server: ServeProcess;
let liveKey: string;
let testKey: string;
const secrets: string[] = [];

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'tidings-logs-'));
  const db = join(dir, 'tidings.db');
  ({ liveKey, testKey } = await createProjectWithKeys(db));
  secrets.push(liveKey, testKey);
  server = await startServe(['--db', db, '--port', '0']);
});

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await rm(dir, { recursive: true, force: true });
});

/** Sends `head` and part of a body over a raw socket, then drops the connection. */
function abortUpload(head: string, partialBody: string): Promise<void> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head + partialBody, () => {
        // Let the server start reading the body before the client goes away.
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    socket.on('error', reject);
  });
}

const json = (key: string, extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  ...extra,
});

/** The JSON lines of the server's stderr (everything it logged). */
function logLines(): Record<string, unknown>[] {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('tidings serve logs', () => {
  it('logs no error when clients abort their uploads, and keeps serving', async () => {
    const before = logLines().length;
    const body = JSON.stringify({ recipient: 'r1', title: 'x'.repeat(1000) });
    await abortUpload(
      `POST /v1/notifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${liveKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body.slice(0, 200),
    );
    await abortUpload(
      `POST /v1/notifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${liveKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      `c8\r\n${body.slice(0, 200)}\r\n`,
    );
    await abortUpload(
      'POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n',
      '{"browser_id":"brw_',
    );
    await quietPeriod(200, 'an error line for the aborts');
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const after = logLines().slice(before);
    expect(after.filter((line) => line.level === 'error')).toEqual([]);
    expect(server.stderr()).not.toMatch(/aborted/i);
  });

  it('writes no key, token or secret, and a request id on every line', async () => {
    const minted = await fetch(`${server.url}/v1/connect-tokens`, {
      method: 'POST',
      headers: json(liveKey),
      body: JSON.stringify({ recipient: 'r1' }),
    });
    expect(minted.status).toBe(201);
    const { token } = (await minted.json()) as { token: string };
    secrets.push(token);
    const registered = await fetch(`${server.url}/v1/connect/${token}`, { method: 'POST' });
    const browser = (await registered.json()) as { browser_id: string; browser_secret: string };
    secrets.push(browser.browser_secret);

    const requests: [string, RequestInit][] = [
      ['/v1/notifications', { method: 'POST', headers: json(liveKey), body: '{"recipient":"r1","title":"hi"}' }],
      [
        '/v1/notifications',
        {
          method: 'POST',
          headers: json(testKey, { 'Idempotency-Key': 'k1' }),
          body: '{"recipient":"r1","title":"hi"}',
        },
      ],
      ['/v1/notifications', { method: 'POST', headers: json(liveKey, { Origin: 'https://x.test' }), body: '{}' }],
      ['/v1/notifications', { method: 'POST', headers: json(`${liveKey.slice(0, -1)}X`), body: '{}' }],
      ['/v1/notifications', { method: 'POST', headers: json(liveKey), body: '{"recipient":' }],
      ['/v1/notifications/ntf_unknown', { headers: json(liveKey) }],
      [
        `/v1/connect/${token}`,
        {
          method: 'POST',
          body: JSON.stringify({ browser_id: browser.browser_id, browser_secret: browser.browser_secret }),
        },
      ],
      [`/v1/connect/${token}x`, { method: 'POST' }],
      [
        '/v1/events',
        {
          method: 'POST',
          body: JSON.stringify({
            browser_id: browser.browser_id,
            browser_secret: `${browser.browser_secret}x`,
            events: [],
          }),
        },
      ],
      [`/v1/connect/${token}/extra`, {}],
      [`/v1/browsers/${browser.browser_id}/disconnect`, { method: 'POST', body: browser.browser_secret }],
    ];
    for (const [path, init] of requests) {
      const response = await fetch(`${server.url}${path}`, init);
      expect(response.status, path).toBeLessThan(500);
      await response.arrayBuffer();
    }
    const stream = await fetch(`${server.url}/v1/connect/${token}`);
    await stream.body?.cancel();
    await quietPeriod(200, 'a line about the ended stream that holds a secret');

    const log = server.stderr();
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      // Nor enough of one to use: its random part.
      expect(log).not.toContain(secret.slice(-20));
    }
    // Every line but the start's (which says whether Web Push is on) is about a request.
    const requestLines = logLines().filter((line) => line.task !== 'start');
    for (const line of requestLines) expect(line, JSON.stringify(line)).toHaveProperty('request_id');
  });
});
