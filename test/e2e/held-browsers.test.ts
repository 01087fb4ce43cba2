import { until } from '@tidings/core/testing';
import { assertBuilt, createProjectWithKeys, type ServedFile, servedFile } from '@tidings/test-support/cli-process.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Browsers held by an instance: a browser whose stream stays open is never stale, however long
 * past `staleBrowserMs` (its instance renews its own record, not the browser's); once that
 * instance is killed with `kill -9`, another instance on the same store reaps the browser a
 * stale timeout after the dead one was last seen, and its pending attempt fails `browser_stale`.
 */
const STALE_MS = 2_000;

let file: ServedFile;
let liveKey: string;

beforeAll(async () => {
  assertBuilt();
  file = await servedFile({ staleBrowserMs: STALE_MS });
  liveKey = (await createProjectWithKeys(file.db)).liveKey;
});

afterAll(async () => {
  await file?.close();
});

const serve = () => file.serve();

function api(url: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('browsers held by instances', () => {
  it('keeps a streaming browser fresh past the stale timeout, and reaps it once its instance was killed', async () => {
    const first = await serve();
    const token = await (await api(first.url, '/v1/connect-tokens', { recipient: 'held' })).json();
    const stream = readEvents(await fetch(token.connect_url, { headers: { Accept: 'text/event-stream' } }));
    await stream.next('ready');
    const sent = await (await api(first.url, '/v1/notifications', { recipient: 'held', title: 'Hi' })).json();
    expect(sent.attempts).toHaveLength(1);
    await stream.next('notification');
    const attempt = async (url: string) => (await (await api(url, `/v1/notifications/${sent.id}`)).json()).attempts[0];

    // Three stale timeouts with the stream open: the attempt waits for its receipt.
    await new Promise((resolve) => setTimeout(resolve, 3 * STALE_MS));
    expect(await attempt(first.url)).toMatchObject({ status: 'sent', final: false });

    first.child.kill('SIGKILL');
    await first.exited;
    await stream.cancel().catch(() => {});
    const killedAt = Date.now();
    const second = await serve();
    await until(async () => (await attempt(second.url)).status === 'failed', { timeoutMs: 10 * STALE_MS });
    expect(await attempt(second.url)).toMatchObject({ status: 'failed', reason: 'browser_stale', final: true });
    // Not before the dead instance's record was a stale timeout old.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(STALE_MS - 600);
  }, 60_000);
});
