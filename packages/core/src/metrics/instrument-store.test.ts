import { describe, expect, it } from 'vitest';
import type { Metrics } from '../ports/metrics.js';
import { noopMetrics } from '../ports/metrics.js';
import type { Store } from '../ports/store.js';
import { instrumentStore } from './instrument-store.js';

/** A store-shaped class with a private field, an extra method and a plain property. */
class FakeStore {
  #accounts = 0;
  readonly kind = 'fake';
  async getAccount(id: string) {
    this.#accounts++;
    return id === 'missing' ? null : { id, seen: this.#accounts };
  }
  async close() {
    throw new Error('already closed');
  }
  checkpoint() {
    return this.#accounts;
  }
}

function recording() {
  const operations: [string, number, string][] = [];
  const metrics: Metrics = { ...noopMetrics, storeOperation: (...args) => operations.push(args) };
  return { metrics, operations };
}

describe('instrumentStore', () => {
  it('times every method by name, resolved or rejected, and passes everything else through', async () => {
    const { metrics, operations } = recording();
    const fake = new FakeStore();
    const store = instrumentStore(fake as unknown as Store, metrics) as unknown as FakeStore;
    expect(await store.getAccount('a')).toEqual({ id: 'a', seen: 1 });
    expect(await store.getAccount('missing')).toBeNull();
    await expect(store.close()).rejects.toThrow('already closed');
    expect(store.checkpoint()).toBe(2);
    expect(store.kind).toBe('fake');
    expect(store).toBeInstanceOf(FakeStore);
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
