import { STORE_DUTIES } from '@tidings/core/store';
import { describe, expect, it } from 'vitest';
import { createSqliteStore, STORE_DURABILITY } from './sqlite-store.js';

/** The methods an object has, own and inherited, as a sorted list. */
function methodsOf(port: object): string[] {
  const names = new Set<string>();
  for (let proto: object | null = port; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof (port as Record<string, unknown>)[name] === 'function') names.add(name);
    }
  }
  return [...names].sort();
}

describe('durability tables', () => {
  it('name every method of the store, so that none skips the flush by being forgotten', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    try {
      expect(methodsOf(store)).toEqual(Object.keys(STORE_DURABILITY).sort());
    } finally {
      await store.close();
    }
  });

  it('refine the durability the core declares: the group commit only for its durable writes', () => {
    for (const [name, duties] of Object.entries(STORE_DUTIES)) {
      const sqlite = STORE_DURABILITY[name as keyof typeof STORE_DURABILITY];
      const expected =
        duties.durability === 'none' ? ['read'] : duties.durability === 'durable' ? ['durable', 'group'] : ['redoable'];
      expect(expected, name).toContain(sqlite);
    }
    expect(
      Object.entries(STORE_DURABILITY)
        .filter(([, durability]) => durability === 'group')
        .map(([name]) => name)
        .sort(),
    ).toEqual(['claimJobs', 'completeJob', 'createNotification', 'failJob', 'recordWebhookAttempt', 'retryJob']);
  });
});
