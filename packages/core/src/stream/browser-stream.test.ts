import { describe, expect, it } from 'vitest';
import type { Delivery } from '../types.js';
import { BrowserStream } from './browser-stream.js';

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
  };
}

function openStream(maxBufferBytes = 1 << 20) {
  const written: string[][] = [];
  const stream = new BrowserStream({
    requestId: 'req_1',
    browserId: 'brw_1',
    projectId: 'proj_1',
    maxBufferBytes,
    onWritten: (ids) => written.push(ids),
    onEnd: () => {},
  });
  stream.open(
    { browser_id: 'brw_1', browser_secret: null, recipient: 'r', heartbeat_ms: 15_000, resumed: true },
    2000,
    0,
  );
  stream.replay([]);
  return { stream, written, reader: stream.body.getReader() };
}

const decoder = new TextDecoder();

describe('BrowserStream', () => {
  it('hands the events delivered in one turn of the event loop to the reader as one chunk', async () => {
    const { stream, written, reader } = openStream();
    await reader.read(); // retry:
    await reader.read(); // ready
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
    await reader.read(); // retry:
    await reader.read(); // ready
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
    await reader.read(); // retry:
    await reader.read(); // ready
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

  it('forgets what the store no longer lists, except what was written while the store was read', async () => {
    const { stream, written } = openStream();
    stream.deliver(delivery(1));
    stream.deliver(delivery(2));
    const generation = stream.beginCatchUp();
    stream.deliver(delivery(3)); // arrives while the store is read, committed after the read
    // The store lists 2 only: 1 was delivered (final); 3 is too recent for the read.
    stream.catchUp([delivery(2)], generation);
    // 1 was forgotten, so a stray copy of it is written again; 3 was kept, so it is not.
    stream.deliver(delivery(3));
    stream.deliver(delivery(1));
    stream.close();
    expect(written.flat()).toEqual(['att_1', 'att_2', 'att_3', 'att_1']);
  });

  it('leaves a catch-up to the backlog while the backlog is being read', () => {
    const written: string[][] = [];
    const stream = new BrowserStream({
      browserId: 'brw_1',
      projectId: 'proj_1',
      requestId: 'req_1',
      maxBufferBytes: 1 << 20,
      onWritten: (ids) => written.push(ids),
      onEnd: () => {},
    });
    stream.open(
      { browser_id: 'brw_1', browser_secret: null, recipient: 'r', heartbeat_ms: 15_000, resumed: true },
      2000,
      0,
    );
    expect(stream.opening).toBe(true);
    stream.catchUp([delivery(1)], stream.beginCatchUp());
    stream.deliver(delivery(2));
    stream.replay([delivery(1), delivery(2)]);
    expect(stream.opening).toBe(false);
    stream.close();
    expect(written.flat()).toEqual(['att_1', 'att_2']);
  });
});
