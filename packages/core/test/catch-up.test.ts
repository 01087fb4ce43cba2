import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryHub, type Hub, type HubMessage } from '../src/index.js';
import { resolveOptions } from '../src/options.js';
import { quietPeriod, until } from '../src/testing/until.js';
import { createHarness, type Harness } from './harness.js';

/** An in-process hub that can be told to lose messages, and to report that it lost some. */
function lossyHub() {
  const inner = createMemoryHub();
  const onMissed = new Set<(browserIds?: readonly string[]) => void>();
  let losing = false;
  const hub: Hub = {
    publish: (messages: readonly HubMessage[]) => (losing ? Promise.resolve() : inner.publish(messages)),
    subscribe(listener, missed) {
      const unsubscribe = inner.subscribe(listener);
      if (missed) onMissed.add(missed);
      return () => {
        unsubscribe();
        if (missed) onMissed.delete(missed);
      };
    },
    follow: (browserId) => inner.follow!(browserId),
    unfollow: (browserId) => inner.unfollow!(browserId),
    close: () => inner.close(),
  };
  return {
    hub,
    lose(value: boolean) {
      losing = value;
    },
    /** Every stream's browsers without a list, as after a reconnect; only those listed with one. */
    reportMissed(browserIds?: readonly string[]) {
      for (const missed of onMissed) missed(browserIds);
    },
    /** Carries messages as a second copy would: a duplicate reaches the same streams. */
    repeat: (messages: readonly HubMessage[]) => inner.publish(messages),
  };
}

let h: Harness;
afterEach(async () => {
  await h.close();
});

async function openStream(recipient: string) {
  const token = (await h.tidings.createConnectToken({ projectId: h.project.id, recipient })).token;
  const stream = readEvents(await h.request(`/v1/connect/${token}`));
  const ready = JSON.parse((await stream.next('ready')).data) as { browser_id: string; browser_secret: string };
  return { stream, browserId: ready.browser_id, secret: ready.browser_secret };
}

const titles = (stream: ReturnType<typeof readEvents>) =>
  stream.events.filter((event) => event.event === 'notification').map((event) => JSON.parse(event.data).title);

describe('catching streams up from the store', () => {
  it('writes a send whose hub message was lost at the next periodic catch-up', async () => {
    const lossy = lossyHub();
    h = await createHarness({ extra: { hub: lossy.hub, catchUpIntervalMs: 50 } });
    const { stream } = await openStream('r');
    lossy.lose(true);
    const sent = await (await h.send({ recipient: 'r', title: 'lost on the way' })).json();
    const event = await stream.next('notification');
    expect(JSON.parse(event.data)).toMatchObject({ attempt_id: sent.attempts[0].id, title: 'lost on the way' });
    await h.tidings.close();
    const read = await (await h.request(`/v1/notifications/${sent.id}`, { key: h.liveKey })).json();
    expect(read.attempts[0].status).toBe('sent');
  });

  it('reads the store at once when a delivery shows a gap in the browser’s sequence', async () => {
    const lossy = lossyHub();
    h = await createHarness({ extra: { hub: lossy.hub, catchUpIntervalMs: 0 } });
    const { stream } = await openStream('r');
    lossy.lose(true);
    await h.send({ recipient: 'r', title: 'first, lost' });
    lossy.lose(false);
    await h.send({ recipient: 'r', title: 'second' });
    await stream.next('notification', 2);
    expect(titles(stream).sort()).toEqual(['first, lost', 'second']);
    // No catch-up timer runs: only the gap could have brought the first one.
  });

  it('catches every stream up when the hub reports that it may have missed messages', async () => {
    const lossy = lossyHub();
    h = await createHarness({ extra: { hub: lossy.hub, catchUpIntervalMs: 0 } });
    const one = await openStream('one');
    const two = await openStream('two');
    lossy.lose(true);
    await h.send({ recipient: 'one', title: 'for one' });
    await h.send({ recipient: 'two', title: 'for two' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(titles(one.stream)).toEqual([]);
    lossy.reportMissed();
    await one.stream.next('notification');
    await two.stream.next('notification');
    expect(titles(one.stream)).toEqual(['for one']);
    expect(titles(two.stream)).toEqual(['for two']);
  });

  it('catches up only the browsers the hub names, when it names some', async () => {
    const lossy = lossyHub();
    h = await createHarness({ extra: { hub: lossy.hub, catchUpIntervalMs: 0 } });
    const one = await openStream('one');
    const two = await openStream('two');
    const asked: string[][] = [];
    const list = h.store.listPendingDeliveries.bind(h.store);
    h.store.listPendingDeliveries = (input) => {
      asked.push([...input.browserIds]);
      return list(input);
    };
    lossy.lose(true);
    await h.send({ recipient: 'one', title: 'for one' });
    await h.send({ recipient: 'two', title: 'for two' });
    // As a Redis hub does when it receives a browser's messages only after its stream read the store.
    lossy.reportMissed([one.browserId]);
    await one.stream.next('notification');
    expect(titles(one.stream)).toEqual(['for one']);
    await quietPeriod(100, 'a catch-up of a stream the hub did not name');
    expect(titles(two.stream)).toEqual([]);
    expect(asked).toEqual([[one.browserId]]);
    // Without a list: every stream.
    lossy.reportMissed();
    await two.stream.next('notification');
    expect(titles(two.stream)).toEqual(['for two']);
    expect(titles(one.stream)).toEqual(['for one']);
  });

  it('catches up a named browser whose stream was still reading its backlog, once the backlog is in', async () => {
    const lossy = lossyHub();
    h = await createHarness({ extra: { hub: lossy.hub, catchUpIntervalMs: 0 } });
    const token = (await h.tidings.createConnectToken({ projectId: h.project.id, recipient: 'r' })).token;
    // The backlog is read, then held back: what is sent meanwhile is not in it.
    let reading: ((browserId: string) => void) | null = null;
    const backlogRead = new Promise<string>((resolve) => {
      reading = resolve;
    });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const listDeliveries = h.store.listDeliveries.bind(h.store);
    h.store.listDeliveries = async (input) => {
      const backlog = await listDeliveries(input);
      reading?.(input.browserId);
      await released;
      return backlog;
    };
    const opening = h.request(`/v1/connect/${token}`);
    const browserId = await backlogRead;
    lossy.lose(true);
    await h.send({ recipient: 'r', title: 'after the backlog read' });
    lossy.lose(false);
    // The hub names the browser while its stream is still opening: the catch-up passes over it.
    lossy.reportMissed([browserId]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const stream = readEvents(await opening);
    await stream.next('ready');
    await stream.next('notification');
    expect(titles(stream)).toEqual(['after the backlog read']);
    stream.cancel();
  });

  it('writes an attempt once when the hub carries it twice and a catch-up lists it too', async () => {
    const lossy = lossyHub();
    h = await createHarness({ extra: { hub: lossy.hub, catchUpIntervalMs: 20 } });
    const { stream } = await openStream('r');
    const sent = await (await h.send({ recipient: 'r', title: 'once' })).json();
    await stream.next('notification');
    // Still pending (no receipt yet): every catch-up lists it, and a stray copy arrives.
    await lossy.repeat([
      {
        type: 'deliver',
        delivery: {
          attemptId: sent.attempts[0].id,
          browserId: sent.attempts[0].browser_id,
          seq: 1,
          notificationId: sent.id,
          title: 'once',
          body: null,
          url: null,
          icon: null,
          tag: null,
          data: null,
          createdAt: Date.parse(sent.created_at),
          expiresAt: Date.parse(sent.expires_at),
          inboxVersion: null,
        },
      },
    ]);
    await quietPeriod(150, 'a second delivery of the same attempt');
    expect(titles(stream)).toEqual(['once']);
  });

  it('closes the stream of a browser disconnected elsewhere, when the close message was lost', async () => {
    const lossy = lossyHub();
    h = await createHarness({ extra: { hub: lossy.hub, catchUpIntervalMs: 30 } });
    const { stream, browserId, secret } = await openStream('r');
    lossy.lose(true);
    const response = await h.request(`/v1/browsers/${browserId}/disconnect`, {
      method: 'POST',
      json: { browser_secret: secret },
    });
    expect(response.status).toBe(204);
    await stream.end(2_000);
    expect(h.tidings.openStreams()).toBe(0);
  });

  it('asks the store only for what lies above what each stream wrote, and from the first missing one', async () => {
    const lossy = lossyHub();
    h = await createHarness({ extra: { hub: lossy.hub, catchUpIntervalMs: 0 } });
    const { stream, browserId } = await openStream('r');
    const asked: Array<readonly number[] | undefined> = [];
    const list = h.store.listPendingDeliveries.bind(h.store);
    h.store.listPendingDeliveries = (input) => {
      asked.push(input.afterSeqs);
      return list(input);
    };
    for (const title of ['one', 'two']) await h.send({ recipient: 'r', title });
    await stream.next('notification');
    await stream.next('notification');
    lossy.reportMissed();
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    expect(asked[0]).toEqual([2]);
    // The third is lost on the way; the fourth shows the gap, and the catch-up reads from the third.
    lossy.lose(true);
    await h.send({ recipient: 'r', title: 'three' });
    lossy.lose(false);
    await h.send({ recipient: 'r', title: 'four' });
    await vi.waitFor(() => expect(titles(stream)).toEqual(['one', 'two', 'four', 'three']));
    expect(asked[1]).toEqual([2]);
    // Everything written: the next catch-up reads above the fourth.
    lossy.reportMissed();
    await vi.waitFor(() => expect(asked).toHaveLength(3));
    expect(asked[2]).toEqual([4]);
    expect(browserId).toMatch(/^brw_/);
    stream.cancel();
  });

  it('reads many open streams a slice at a time, letting other work run between the reads', async () => {
    const lossy = lossyHub();
    h = await createHarness({ limits: { connectPerIp: 1_000 }, extra: { hub: lossy.hub, catchUpIntervalMs: 0 } });
    const streams = [];
    for (let i = 0; i < 600; i++) streams.push(await openStream(`r${i}`));
    // Which turn of the event loop each store read of the catch-up runs in.
    let turn = 0;
    let turning = true;
    const tick = () => {
      turn++;
      if (turning) setImmediate(tick);
    };
    setImmediate(tick);
    const readTurns: number[] = [];
    const browsersRead: number[] = [];
    const list = h.store.listPendingDeliveries.bind(h.store);
    h.store.listPendingDeliveries = (input) => {
      readTurns.push(turn);
      browsersRead.push(input.browserIds.length);
      return list(input);
    };
    lossy.reportMissed();
    const deadline = Date.now() + 5_000;
    while (browsersRead.reduce((a, b) => a + b, 0) < 600 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    turning = false;
    expect(browsersRead.reduce((a, b) => a + b, 0)).toBe(600);
    expect(Math.max(...browsersRead)).toBeLessThanOrEqual(250);
    expect(new Set(readTurns).size).toBe(readTurns.length);
    for (const { stream } of streams) stream.cancel();
  });
});

describe('the periodic catch-up', () => {
  it('is off by default with a hub that loses nothing, on with one that may', () => {
    const store = {} as Parameters<typeof resolveOptions>[0]['store'];
    expect(resolveOptions({ store }).catchUpIntervalMs).toBe(0);
    expect(resolveOptions({ store, hub: createMemoryHub() }).catchUpIntervalMs).toBe(0);
    expect(resolveOptions({ store, hub: lossyHub().hub }).catchUpIntervalMs).toBe(5_000);
    const reporting = { ...lossyHub().hub, lossesReported: true };
    expect(resolveOptions({ store, hub: reporting }).catchUpIntervalMs).toBe(30_000);
    expect(resolveOptions({ store, hub: reporting, catchUpIntervalMs: 5_000 }).catchUpIntervalMs).toBe(5_000);
    expect(resolveOptions({ store, hub: lossyHub().hub, catchUpIntervalMs: 0 }).catchUpIntervalMs).toBe(0);
  });
});

/**
 * An in-process hub whose follows take effect, and resolve, only when the test lets them, as a
 * Redis subscription does once Redis confirms it: what is published before is not carried.
 */
function gatedHub() {
  const inner = createMemoryHub();
  const gated: Array<() => void> = [];
  const hub: Hub = {
    publish: (messages) => inner.publish(messages),
    subscribe: (listener, missed) => inner.subscribe(listener, missed),
    follow: (browserId) =>
      new Promise<void>((resolve) => {
        gated.push(() => {
          void inner.follow!(browserId);
          resolve();
        });
      }),
    unfollow: (browserId) => inner.unfollow!(browserId),
    close: () => inner.close(),
  };
  return {
    hub,
    pending: () => gated.length,
    release() {
      for (const confirm of gated.splice(0)) confirm();
    },
  };
}

describe('opening a stream while its browser’s subscription is set up', () => {
  it('reads the backlog only once the hub confirmed the follow: a send in between comes from the store', async () => {
    const gate = gatedHub();
    h = await createHarness({ extra: { hub: gate.hub, catchUpIntervalMs: 0 } });
    const { token, browserId } = await h.connectBrowser('r');
    const opening = h.request(`/v1/connect/${token}?last_event_id=${browserId}.0`);
    await until(() => gate.pending() === 1, { what: 'the stream’s follow' });
    // Committed while the hub does not carry the browser's messages here yet.
    const sent = await (await h.send({ recipient: 'r', title: 'during the subscribe' })).json();
    expect(sent.attempts).toHaveLength(1);
    gate.release();
    const stream = readEvents(await opening);
    await stream.next('ready');
    await stream.next('notification');
    expect(titles(stream)).toEqual(['during the subscribe']);
    // And what is published after the follow comes through the hub.
    await h.send({ recipient: 'r', title: 'after' });
    await stream.next('notification', 2);
    expect(titles(stream)).toEqual(['during the subscribe', 'after']);
  });
});
