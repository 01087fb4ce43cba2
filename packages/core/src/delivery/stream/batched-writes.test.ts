import { describe, expect, it } from 'vitest';
import { BatchedWrites } from './batched-writes.js';

/** A batch whose writes are recorded and finish only when released. */
function recordingBatch(delayMs = 60_000) {
  const calls: string[][] = [];
  const releases: Array<() => void> = [];
  const batch = new BatchedWrites<string>({
    delayMs,
    chunkSize: 100,
    write: (items) => {
      calls.push(items);
      return new Promise<void>((resolve) => releases.push(resolve));
    },
    onError: () => {},
  });
  return { batch, calls, releases };
}

const settledSoon = async (promise: Promise<void>): Promise<boolean> => {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

describe('BatchedWrites.written', () => {
  it('writes a queued item at once instead of after the delay, and resolves once it is written', async () => {
    const { batch, calls, releases } = recordingBatch();
    batch.add(['a', 'b']);
    const written = batch.written(['b']);
    expect(await settledSoon(written)).toBe(false);
    expect(calls).toEqual([['a', 'b']]);
    releases[0]!();
    expect(await settledSoon(written)).toBe(true);
  });

  it('waits for a write already under way that holds the item', async () => {
    const { batch, calls, releases } = recordingBatch();
    batch.add(['a']);
    void batch.flush();
    const written = batch.written(['a']);
    expect(await settledSoon(written)).toBe(false);
    expect(calls).toEqual([['a']]);
    releases[0]!();
    expect(await settledSoon(written)).toBe(true);
  });

  it('resolves at once, writing nothing, for items neither queued nor being written', async () => {
    const { batch, calls, releases } = recordingBatch();
    batch.add(['a']);
    void batch.flush();
    expect(await settledSoon(batch.written(['z']))).toBe(true);
    releases[0]!();
    await batch.flush();
    expect(await settledSoon(batch.written(['a']))).toBe(true);
    expect(calls).toEqual([['a']]);
  });
});
