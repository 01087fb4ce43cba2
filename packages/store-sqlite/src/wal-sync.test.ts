import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useStoreFile } from './test-support/store-file.js';
import { createWalSync, type FlushFile } from './wal-sync.js';

const file = useStoreFile();

/** A flush that finishes only when the test says so, recording when each one began. */
function manualFlush() {
  const pending: (() => void)[] = [];
  const flush: FlushFile = (_fd, done) => {
    pending.push(() => done(null));
  };
  return { flush, pending, finishOne: () => pending.shift()?.() };
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('WalSync', () => {
  it('resolves a sync only after a flush that began after the call', async () => {
    const wal = `${file.path}-x-wal`;
    writeFileSync(wal, '');
    const manual = manualFlush();
    const walSync = createWalSync(wal, manual.flush)!;

    const first = walSync.sync();
    expect(manual.pending).toHaveLength(1);
    // Arrives while the first flush runs: that flush may predate its commit.
    const second = walSync.sync();
    const third = walSync.sync();
    expect(manual.pending).toHaveLength(1);
    manual.finishOne();
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    // The next flush began after the first ended, and serves both callers that waited.
    expect(manual.pending).toHaveLength(1);
    manual.finishOne();
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(true);
    await walSync.close();
  });

  it('rejects the callers of a failed flush and flushes again for the next', async () => {
    const wal = `${file.path}-y-wal`;
    writeFileSync(wal, '');
    let fail = true;
    const walSync = createWalSync(wal, (_fd, done) => {
      const error = fail ? Object.assign(new Error('EIO'), { code: 'EIO' }) : null;
      fail = false;
      setImmediate(() => done(error));
    })!;
    await expect(walSync.sync()).rejects.toThrow('EIO');
    await expect(walSync.sync()).resolves.toBeUndefined();
    await walSync.close();
  });

  it('is null without a WAL file', () => {
    expect(createWalSync(`${file.path}-missing-wal`)).toBeNull();
  });
});
