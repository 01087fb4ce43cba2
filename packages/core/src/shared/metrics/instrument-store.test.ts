import { describe, expect, it } from 'vitest';
import type { Metrics } from '../../ports/metrics.js';
import { noopMetrics } from '../../ports/metrics.js';
import type { Store } from '../../ports/store.js';
import { instrumentStore } from './instrument-store.js';

/** A store-shaped object with an extra method and a property that is not a method. */
function fakeStore() {
  let accounts = 0;
  return {
    capabilities: { kind: 'fake' },
    async getAccount(id: string) {
      accounts++;
      return id === 'missing' ? null : { id, seen: accounts };
    },
    async close() {
      throw new Error('already closed');
    },
    checkpoint() {
      return accounts;
    },
  };
}
type FakeStore = ReturnType<typeof fakeStore>;

function recording() {
  const operations: [string, number, string][] = [];
  const metrics: Metrics = { ...noopMetrics, storeOperation: (...args) => operations.push(args) };
  return { metrics, operations };
}

describe('instrumentStore', () => {
  it('times every method by name, resolved or rejected, and passes everything else through', async () => {
    const { metrics, operations } = recording();
    const fake = fakeStore();
    const store = instrumentStore(fake as unknown as Store, metrics) as unknown as FakeStore;
    expect(await store.getAccount('a')).toEqual({ id: 'a', seen: 1 });
    expect(await store.getAccount('missing')).toBeNull();
    await expect(store.close()).rejects.toThrow('already closed');
    expect(store.checkpoint()).toBe(2);
    expect(store.capabilities).toBe(fake.capabilities);
    expect(store.getAccount).toBe(store.getAccount);
    expect(operations.map(([name, , outcome]) => `${name} ${outcome}`)).toEqual([
      'getAccount ok',
      'getAccount ok',
      'close error',
      'checkpoint ok',
    ]);
    for (const [, durationMs] of operations) expect(durationMs).toBeGreaterThanOrEqual(0);
  });
});
