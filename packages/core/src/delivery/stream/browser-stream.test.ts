import { describe, expect, it } from 'vitest';
import type { EventSink } from '../../ports/event-sink.js';
import type { Delivery } from '../../ports/records.js';
import { BrowserStream, type StreamOwner } from './browser-stream.js';
import { WebEventSink } from './web-event-sink.js';

function delivery(seq: number): Delivery {
  return {
    attemptId: `att_${seq}`,
    browserId: 'brw_1',
    seq,
    notificationId: `ntf_${seq}`,
    title: `Title ${seq}`,
    body: null,
    url: null,
    icon: null,
    tag: null,
    data: null,
    createdAt: 0,
    expiresAt: 60_000,
    inboxVersion: null,
  };
}

/** An owner that records what its stream reports. */
function owner(maxBufferBytes = 1 << 20) {
  const written: string[][] = [];
  const ended: BrowserStream[] = [];
  const it: StreamOwner = {
    maxBufferBytes,
    written: (ids) => written.push(ids),
    ended: (stream) => ended.push(stream),
  };
  return { owner: it, written, ended };
}

function newStream(streamOwner: StreamOwner) {
  const stream = new BrowserStream({ browserId: 'brw_1', projectId: 'proj_1', owner: streamOwner });
  stream.open(
    {
      browser_id: 'brw_1',
      browser_secret: null,
      recipient: 'r',
      heartbeat_ms: 15_000,
      resumed: true,
      vapid_public_key: null,
    },
    2000,
    0,
  );
  return stream;
}

/** A stream answered as a Web body, as `fetch` does without a host connection. */
function openStream(maxBufferBytes = 1 << 20) {
  const { owner: streamOwner, written, ended } = owner(maxBufferBytes);
  const stream = newStream(streamOwner);
  stream.replay([]);
  const sink = new WebEventSink(stream);
  stream.attach(sink);
  return { stream, written, ended, reader: sink.body.getReader() };
}

/** A sink like a socket: it takes `room` bytes, then says to wait until drained. */
class FakeSink implements EventSink {
  chunks: string[] = [];
  buffered = 0;
  ended = false;
  destroyed = false;
  constructor(readonly room: number) {}
  write(bytes: Uint8Array): boolean {
    this.chunks.push(decoder.decode(bytes));
    this.buffered += bytes.byteLength;
    return this.buffered < this.room;
  }
  get bufferedBytes() {
    return this.buffered;
  }
  end() {
    this.ended = true;
  }
  destroy() {
    this.destroyed = true;
  }
  /** The connection took everything. */
  drain(stream: BrowserStream) {
    this.buffered = 0;
    stream.drained();
  }
}

const decoder = new TextDecoder();

describe('BrowserStream', () => {
  it('hands the events delivered in one turn of the event loop to the reader as one chunk', async () => {
    const { stream, written, reader } = openStream();
    expect(decoder.decode((await reader.read()).value)).toMatch(/^retry: \d+\n\nid: brw_1\.0\nevent: ready\n/);
    for (const seq of [1, 2, 3]) stream.deliver(delivery(seq));
    const { value } = await reader.read();
    const text = decoder.decode(value);
    expect(text.match(/^event: notification$/gm)).toHaveLength(3);
    expect(text.match(/^id: .*$/gm)).toEqual(['id: brw_1.1', 'id: brw_1.2', 'id: brw_1.3']);
    expect(written).toEqual([['att_1', 'att_2', 'att_3']]);

    stream.deliver(delivery(4));
    expect(decoder.decode((await reader.read()).value)).toContain('id: brw_1.4');
    expect(written.at(-1)).toEqual(['att_4']);
    stream.close();
  });

  it('writes what was delivered in the same turn before it closes', async () => {
    const { stream, written, reader } = openStream();
    expect(decoder.decode((await reader.read()).value)).toMatch(/^retry: \d+\n\nid: brw_1\.0\nevent: ready\n/);
    stream.deliver(delivery(1));
    stream.close();
    const { value } = await reader.read();
    expect(decoder.decode(value)).toContain('id: brw_1.1');
    expect(written).toEqual([['att_1']]);
    expect((await reader.read()).done).toBe(true);
  });

  it('still cuts a reader that lets live events pile up past the buffer limit', async () => {
    const { stream, reader } = openStream(4096);
    for (let seq = 1; seq <= 100 && !stream.ended; seq++) stream.deliver(delivery(seq));
    expect(stream.ended).toBe(true);
    await expect(reader.read()).rejects.toThrow(/slow reader/);
  });

  it('writes an attempt once, whether it comes from the hub, twice, or from a catch-up', async () => {
    const { stream, written, reader } = openStream();
    expect(decoder.decode((await reader.read()).value)).toMatch(/^retry: \d+\n\nid: brw_1\.0\nevent: ready\n/);
    expect(stream.deliver(delivery(1))).toBe(false);
    expect(stream.deliver(delivery(1))).toBe(false);
    stream.catchUp([delivery(1), delivery(2)], stream.beginCatchUp());
    const text = decoder.decode((await reader.read()).value);
    expect(text.match(/^id: .*$/gm)).toEqual(['id: brw_1.1', 'id: brw_1.2']);
    expect(written.flat()).toEqual(['att_1', 'att_2']);
    stream.deliver(delivery(2));
    stream.close();
    expect((await reader.read()).done).toBe(true);
    expect(written.flat()).toEqual(['att_1', 'att_2']);
  });

  it('reports a gap in the sequence, and writes the delivery all the same', async () => {
    const { stream, written } = openStream();
    expect(stream.deliver(delivery(1))).toBe(false);
    expect(stream.deliver(delivery(3))).toBe(true);
    // The missing one, late: no new gap, and it is written.
    expect(stream.deliver(delivery(2))).toBe(false);
    expect(stream.deliver(delivery(4))).toBe(false);
    stream.close();
    expect(written.flat()).toEqual(['att_1', 'att_3', 'att_2', 'att_4']);
  });

  it('forgets missing attempts the store no longer lists, except ones that went missing while the store was read', async () => {
    const { stream, written } = openStream();
    stream.deliver(delivery(1));
    expect(stream.deliver(delivery(3))).toBe(true); // 2 is missing
    const generation = stream.beginCatchUp();
    expect(stream.deliver(delivery(5))).toBe(true); // 4 goes missing while the store is read
    // The store lists neither 2 (final by now) nor 4 (too recent for the read).
    stream.catchUp([], generation);
    stream.deliver(delivery(2)); // a stray copy of a final attempt: not written
    stream.deliver(delivery(4)); // late, and still missing: written
    stream.deliver(delivery(4));
    stream.deliver(delivery(1));
    stream.close();
    expect(written.flat()).toEqual(['att_1', 'att_3', 'att_5', 'att_4']);
  });

  it('writes each attempt once over a long life, however late a copy comes', async () => {
    const { owner: streamOwner, written } = owner();
    const stream = newStream(streamOwner);
    stream.replay([]);
    stream.attach(new FakeSink(1 << 30));
    for (let seq = 1; seq <= 2_000; seq++) stream.deliver(delivery(seq));
    for (const seq of [1, 999, 2_000]) stream.deliver(delivery(seq));
    stream.catchUp([delivery(1_500), delivery(2_001)], stream.beginCatchUp());
    stream.close();
    expect(written.flat()).toEqual(Array.from({ length: 2_001 }, (_, i) => `att_${i + 1}`));
  });

  it('counts no gap below the position the browser resumed from, and trusts it no further', () => {
    const { owner: streamOwner, written } = owner();
    const stream = new BrowserStream({
      browserId: 'brw_1',
      projectId: 'proj_1',
      owner: streamOwner,
    });
    stream.open(
      {
        browser_id: 'brw_1',
        browser_secret: null,
        recipient: 'r',
        heartbeat_ms: 15_000,
        resumed: true,
        vapid_public_key: null,
      },
      2000,
      10,
    );
    stream.replay([delivery(7)]); // still pending, though the browser saw it
    stream.attach(new FakeSink(1 << 20));
    expect(stream.deliver(delivery(11))).toBe(false);
    expect(stream.deliver(delivery(13))).toBe(true);
    expect(stream.deliver(delivery(12))).toBe(false);
    stream.close();
    expect(written.flat()).toEqual(['att_7', 'att_11', 'att_13', 'att_12']);

    // A position beyond anything sent (a client's mistake) holds nothing back.
    const { owner: other, written: otherWritten } = owner();
    const lied = new BrowserStream({ browserId: 'brw_1', projectId: 'proj_1', owner: other });
    lied.open(
      {
        browser_id: 'brw_1',
        browser_secret: null,
        recipient: 'r',
        heartbeat_ms: 15_000,
        resumed: true,
        vapid_public_key: null,
      },
      2000,
      999,
    );
    lied.replay([]);
    lied.attach(new FakeSink(1 << 20));
    expect(lied.deliver(delivery(5))).toBe(false);
    lied.deliver(delivery(6));
    lied.close();
    expect(otherWritten.flat()).toEqual(['att_5', 'att_6']);
  });

  it('after a gap too long to list, writes what comes below it until a catch-up settles it', () => {
    const { stream, written } = openStream();
    stream.deliver(delivery(1));
    expect(stream.deliver(delivery(5_000))).toBe(true);
    stream.deliver(delivery(3_000));
    stream.deliver(delivery(3_000)); // unchecked: written again, which the browser drops
    stream.catchUp([delivery(3_000), delivery(4_000)], stream.beginCatchUp());
    stream.deliver(delivery(3_000));
    stream.deliver(delivery(4_000));
    stream.close();
    expect(written.flat()).toEqual(['att_1', 'att_5000', 'att_3000', 'att_3000', 'att_3000', 'att_4000']);
  });

  it('leaves a catch-up to the backlog while the backlog is being read', () => {
    const { owner: streamOwner, written } = owner();
    const stream = newStream(streamOwner);
    expect(stream.opening).toBe(true);
    stream.catchUp([delivery(1)], stream.beginCatchUp());
    stream.deliver(delivery(2));
    stream.replay([delivery(1), delivery(2)]);
    expect(stream.opening).toBe(false);
    expect(written).toEqual([]);
    const sink = new FakeSink(1 << 20);
    stream.attach(sink);
    // The head of the answer and everything queued leave in one write.
    expect(sink.chunks).toHaveLength(1);
    expect(sink.chunks[0]!.match(/^id: .*$/gm)).toEqual(['id: brw_1.0', 'id: brw_1.1', 'id: brw_1.2']);
    stream.close();
    expect(written.flat()).toEqual(['att_1', 'att_2']);
    expect(sink.ended).toBe(true);
  });

  it('asks its owner for the catch-up it was passed over for while it read its backlog, once it is in', () => {
    const owed: BrowserStream[] = [];
    const { owner: streamOwner } = owner();
    streamOwner.caughtUpWhileOpening = (passed) => owed.push(passed);
    const stream = newStream(streamOwner);
    stream.passedOverWhileOpening();
    expect(owed).toEqual([]);
    stream.replay([]);
    expect(owed).toEqual([stream]);
    const other = newStream(streamOwner);
    other.replay([]);
    expect(owed).toEqual([stream]);
  });
});

describe('BrowserStream on a sink with backpressure', () => {
  it('writes a large backlog in pieces, each when the connection drained, and every attempt once', () => {
    const { owner: streamOwner, written } = owner(64 * 1024);
    const stream = newStream(streamOwner);
    const backlog = Array.from({ length: 400 }, (_, i) => delivery(i + 1));
    stream.replay(backlog);
    const sink = new FakeSink(16 * 1024);
    stream.attach(sink);
    expect(sink.chunks).toHaveLength(1);
    // Queued backlog is the store's: it does not count against the buffer limit.
    expect(stream.ended).toBe(false);
    let rounds = 0;
    while (written.flat().length < 400 && rounds++ < 1000) sink.drain(stream);
    const ids = sink.chunks.join('').match(/^id: brw_1\.\d+$/gm)!;
    expect(ids).toEqual(Array.from({ length: 401 }, (_, i) => `id: brw_1.${i}`));
    expect(written.flat()).toEqual(backlog.map((d) => d.attemptId));
    expect(sink.chunks.length).toBeGreaterThan(5);
    for (const chunk of sink.chunks) expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(17 * 1024);
  });

  it('holds live events while the connection is full, and cuts it past the buffer limit', async () => {
    const { owner: streamOwner, ended } = owner(8 * 1024);
    const stream = newStream(streamOwner);
    stream.replay([]);
    const sink = new FakeSink(100); // already full after the head
    stream.attach(sink);
    const writes = sink.chunks.length;
    stream.deliver(delivery(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.chunks).toHaveLength(writes); // waits for the drain
    expect(stream.bufferedBytes).toBeGreaterThan(sink.buffered);
    sink.drain(stream);
    expect(sink.chunks.join('')).toContain('id: brw_1.1');
    for (let seq = 2; seq <= 200 && !stream.ended; seq++) stream.deliver(delivery(seq));
    expect(stream.ended).toBe(true);
    expect(sink.destroyed).toBe(true);
    expect(ended).toEqual([stream]);
  });

  it('ends when the connection is gone, once, and writes nothing after', () => {
    const { owner: streamOwner, ended } = owner();
    const stream = newStream(streamOwner);
    stream.replay([]);
    const sink = new FakeSink(1 << 20);
    stream.attach(sink);
    stream.closed();
    stream.closed();
    stream.deliver(delivery(1));
    stream.heartbeat();
    stream.close();
    expect(ended).toEqual([stream]);
    expect(sink.chunks).toHaveLength(1);
    expect(sink.ended).toBe(false);
  });

  it('writes heartbeats behind queued events, never inside one', () => {
    const { owner: streamOwner } = owner();
    const stream = newStream(streamOwner);
    stream.replay([]);
    const sink = new FakeSink(1 << 20);
    stream.attach(sink);
    stream.deliver(delivery(1));
    stream.heartbeat();
    stream.close();
    expect(sink.chunks.join('')).toMatch(/data: [^\n]+\n\n: ping\n\n$/);
  });
});
