import { quietPeriod, until } from '@tidings/core/testing';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
let token: string;
beforeEach(async () => {
  h = await createHarness({ extra: { heartbeatMs: 50, sweepIntervalMs: 0 } });
  token = (await h.tidings.createConnectToken({ projectId: h.project.id, recipient: 'streamer' })).token;
});
afterEach(async () => {
  await h.close();
});

function open(headers: Record<string, string> = {}, query = '') {
  return h.request(`/v1/connect/${token}${query}`, { headers: { Accept: 'text/event-stream', ...headers } });
}

async function attemptOf(notificationId: string) {
  const read = await (await h.request(`/v1/notifications/${notificationId}`, { key: h.testKey })).json();
  return read.attempts[0] as { status: string; final: boolean; reason: string | null; sent_at: string | null };
}

describe('GET /v1/connect/{token}', () => {
  it('answers an event stream: headers, retry, ready first, then notifications with <browser_id>.<seq> ids', async () => {
    const response = await open();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const stream = readEvents(response);
    const ready = await stream.next('ready');
    expect(stream.events[0]!.event).toBe('ready');
    const data = JSON.parse(ready.data);
    expect(data).toMatchObject({ recipient: 'streamer', heartbeat_ms: 50, resumed: false });
    expect(data.browser_secret).toMatch(/^bs_[A-Za-z0-9]{32}$/);
    expect(ready.id).toBe(`${data.browser_id}.0`);
    expect(stream.retry).toBeGreaterThanOrEqual(2000);
    expect(stream.retry).toBeLessThanOrEqual(3000);

    const sent = await (await h.send({ recipient: 'streamer', title: 'Live!', url: '/x', data: { k: 1 } })).json();
    const event = await stream.next('notification');
    expect(event.id).toBe(`${data.browser_id}.1`);
    expect(JSON.parse(event.data)).toEqual({
      attempt_id: sent.attempts[0].id,
      notification_id: sent.id,
      title: 'Live!',
      body: null,
      url: '/x',
      icon: null,
      tag: null,
      data: { k: 1 },
      created_at: sent.created_at,
      expires_at: sent.expires_at,
      // The recipient's first inbox change: its item (docs/inbox.md#versions).
      inbox_version: 1,
    });
    await h.send({ recipient: 'streamer', title: 'Second' });
    expect((await stream.next('notification', 2)).id).toBe(`${data.browser_id}.2`);
    await h.tidings.close();
    expect((await attemptOf(sent.id)).status).toBe('sent');
  });

  it('records an attempt sent at the time its event was written, not when the batched record lands', async () => {
    const stream = readEvents(await open());
    await stream.next('ready');
    const writtenAt = h.clock.now();
    const sent = await (await h.send({ recipient: 'streamer', title: 'Timed' })).json();
    await stream.next('notification');
    // The record of sending is written in a batch a little later: by then the clock has moved on.
    h.clock.advance(5_000);
    const attempt = await until(() => attemptOf(sent.id), {
      accept: (read) => read.status === 'sent',
      what: 'the record of sending',
    });
    expect(attempt.sent_at).toBe(new Date(writtenAt).toISOString());
  });

  it('answers an attempt whose times keep their order when the browser’s clock runs behind the server’s', async () => {
    const stream = readEvents(await open());
    const ready = JSON.parse((await stream.next('ready')).data);
    const writtenAt = h.clock.now();
    const sent = await (await h.send({ recipient: 'streamer', title: 'Timed' })).json();
    await stream.next('notification');
    // Stamped by a browser whose clock is 3 s behind; the app reported its delivery after the display.
    const browserTime = (ms: number) => new Date(writtenAt - 3_000 + ms).toISOString();
    const attemptId = sent.attempts[0].id;
    const posted = await h.request('/v1/events', {
      method: 'POST',
      json: {
        browser_id: ready.browser_id,
        browser_secret: ready.browser_secret,
        events: [
          { type: 'displayed', attempt_id: attemptId, at: browserTime(40) },
          { type: 'delivered', attempt_id: attemptId, at: browserTime(60) },
        ],
      },
    });
    expect(posted.status).toBe(202);
    const read = await (await h.request(`/v1/notifications/${sent.id}`, { key: h.testKey })).json();
    expect(read.attempts[0]).toMatchObject({
      status: 'delivered',
      via: 'stream',
      sent_at: browserTime(40),
      delivered_at: browserTime(40),
      displayed_at: browserTime(40),
    });
  });

  it('writes a heartbeat comment at least every heartbeat_ms', async () => {
    const stream = readEvents(await open());
    await stream.next('ready');
    const started = Date.now();
    await stream.until(() => stream.comments.length >= 2, 1000);
    expect(stream.comments[0]!.trim()).toBe('ping');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('resumes from Last-Event-ID (header or query): every attempt that is not final again, in order', async () => {
    const first = readEvents(await open());
    const ready = JSON.parse((await first.next('ready')).data);
    const a = await (await h.send({ recipient: 'streamer', title: 'A' })).json();
    await first.next('notification');
    await first.cancel();
    const b = await (await h.send({ recipient: 'streamer', title: 'B' })).json();
    const c = await (await h.send({ recipient: 'streamer', title: 'C' })).json();
    // A was delivered meanwhile; B and C are not final.
    await h.request('/v1/events', {
      method: 'POST',
      json: {
        browser_id: ready.browser_id,
        browser_secret: ready.browser_secret,
        events: [{ type: 'delivered', attempt_id: a.attempts[0].id }],
      },
    });

    for (const resume of [
      () => open({ 'Last-Event-ID': `${ready.browser_id}.1` }),
      () => open({}, `?last_event_id=${ready.browser_id}.1`),
    ]) {
      const again = readEvents(await resume());
      const resumed = JSON.parse((await again.next('ready')).data);
      expect(resumed).toMatchObject({ browser_id: ready.browser_id, browser_secret: null, resumed: true });
      await again.next('notification', 2);
      expect(again.events.filter((e) => e.event === 'notification').map((e) => JSON.parse(e.data).attempt_id)).toEqual([
        b.attempts[0].id,
        c.attempts[0].id,
      ]);
      await again.cancel();
    }
  });

  it('a browser disconnected by request answers 204; an unknown or foreign one starts a new browser', async () => {
    const first = readEvents(await open());
    const ready = JSON.parse((await first.next('ready')).data);
    const disconnect = await h.request(`/v1/browsers/${ready.browser_id}/disconnect`, {
      method: 'POST',
      body: ready.browser_secret,
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(disconnect.status).toBe(204);
    await first.end();

    const gone = await open({ 'Last-Event-ID': `${ready.browser_id}.3` });
    expect(gone.status).toBe(204);

    const unknown = readEvents(await open({ 'Last-Event-ID': 'brw_00000000000000000000000000.4' }));
    const fresh = JSON.parse((await unknown.next('ready')).data);
    expect(fresh.resumed).toBe(false);
    expect(fresh.browser_id).not.toBe(ready.browser_id);
    await unknown.cancel();

    const otherToken = (await h.tidings.createConnectToken({ projectId: h.project.id, recipient: 'someone-else' }))
      .token;
    const foreign = readEvents(
      await h.request(`/v1/connect/${otherToken}`, { headers: { 'Last-Event-ID': `${fresh.browser_id}.0` } }),
    );
    const foreignReady = JSON.parse((await foreign.next('ready')).data);
    expect(foreignReady.browser_id).not.toBe(fresh.browser_id);
    expect(foreignReady.recipient).toBe('someone-else');
    await foreign.cancel();
  });

  it('a stale-reaped browser starts anew and its attempts are failed', async () => {
    const first = readEvents(await open());
    const ready = JSON.parse((await first.next('ready')).data);
    await first.cancel();
    const sent = await (await h.send({ recipient: 'streamer', title: 'x' })).json();
    h.clock.advance(120_001);
    await h.tidings.sweep();
    expect(await attemptOf(sent.id)).toMatchObject({ status: 'failed', reason: 'browser_stale', final: true });
    const again = readEvents(await open({ 'Last-Event-ID': `${ready.browser_id}.1` }));
    expect(JSON.parse((await again.next('ready')).data).resumed).toBe(false);
    await again.cancel();
  });

  it('an open stream keeps its browser from going stale', async () => {
    const stream = readEvents(await open());
    await stream.next('ready');
    for (let i = 0; i < 5; i++) {
      h.clock.advance(60_000);
      await h.tidings.sweep();
    }
    expect((await h.send({ recipient: 'streamer', title: 'still here' })).status).toBe(201);
    await stream.next('notification');
  });

  it('a browser with two streams stays fresh while either is open, and goes stale once the last has ended', async () => {
    const first = readEvents(await open());
    const ready = JSON.parse((await first.next('ready')).data);
    const second = readEvents(await open({ 'Last-Event-ID': `${ready.browser_id}.0` }));
    expect(JSON.parse((await second.next('ready')).data)).toMatchObject({
      browser_id: ready.browser_id,
      resumed: true,
    });
    await first.cancel();
    await until(() => h.tidings.openStreams() === 1);
    for (let i = 0; i < 5; i++) {
      h.clock.advance(60_000);
      await h.tidings.sweep();
    }
    const sent = await (await h.send({ recipient: 'streamer', title: 'one still open' })).json();
    await second.next('notification');
    await second.cancel();
    await until(() => h.tidings.openStreams() === 0);
    await quietPeriod(200, 'the end of the last stream to be recorded');
    h.clock.advance(120_001);
    await h.tidings.sweep();
    expect(await attemptOf(sent.id)).toMatchObject({ status: 'failed', reason: 'browser_stale', final: true });
  });

  it('suspending the project closes its streams; closing the instance closes the rest cleanly', async () => {
    const stream = readEvents(await open());
    await stream.next('ready');
    const otherProject = await h.tidings.admin.createProject({ accountId: h.account.id, name: 'Other' });
    const otherToken = (await h.tidings.createConnectToken({ projectId: otherProject.id, recipient: 'z' })).token;
    const other = readEvents(await h.request(`/v1/connect/${otherToken}`));
    await other.next('ready');
    expect(h.tidings.openStreams()).toBe(2);

    await h.tidings.admin.suspendProject(h.project.id);
    await stream.end();
    expect(h.tidings.openStreams()).toBe(1);
    expect((await open()).status).toBe(403);

    await h.tidings.close();
    await other.end();
    expect(h.tidings.openStreams()).toBe(0);
  });

  it('a suspension written by another process (straight to the store) closes the streams at the next sweep', async () => {
    const stream = readEvents(await open());
    await stream.next('ready');
    await h.store.setProjectSuspended({ id: h.project.id, suspended: true, now: h.clock.now() });
    expect(h.tidings.openStreams()).toBe(1);
    await h.tidings.sweep();
    await stream.end();
    expect(h.tidings.openStreams()).toBe(0);
  });

  it('a slow reader is cut at the buffer limit instead of growing memory, and resumes without loss', async () => {
    await h.close();
    h = await createHarness({
      extra: { maxStreamBufferBytes: 64 * 1024, heartbeatMs: 60_000 },
      limits: { perKey: 10_000, perProject: 10_000, perAccount: 10_000 },
    });
    token = (await h.tidings.createConnectToken({ projectId: h.project.id, recipient: 'slow' })).token;
    const response = await h.request(`/v1/connect/${token}`);
    // Read only the first chunk (the ready event), then stop reading.
    const reader = response.body!.getReader();
    let first = '';
    while (!first.includes('event: ready')) first += new TextDecoder().decode((await reader.read()).value);
    const browserId = /id: (brw_[0-9a-z]+)\.0/.exec(first)?.[1];
    expect(browserId).toMatch(/^brw_/);
    const body = 'x'.repeat(1900);
    let sent = 0;
    while (h.tidings.openStreams() > 0 && sent < 500) {
      expect((await h.send({ recipient: 'slow', title: `n${sent}`, body })).status).toBe(201);
      sent++;
    }
    // Cut after about 64 KiB of ~2 KiB events, long before 500 notifications (1 MB).
    expect(h.tidings.openStreams()).toBe(0);
    expect(sent).toBeLessThan(60);
    await expect(reader.read()).rejects.toThrow(/slow reader/);

    // Nothing is lost: the browser resumes and gets every notification that is not final.
    const again = readEvents(
      await h.request(`/v1/connect/${token}`, { headers: { 'Last-Event-ID': `${browserId}.1` } }),
    );
    await again.next('notification', sent);
    expect(new Set(again.events.filter((e) => e.event === 'notification').map((e) => e.id)).size).toBe(sent);
    await again.cancel();
  });
});
