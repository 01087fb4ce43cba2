import { newId } from '@tidings/core';
import { T0 } from '@tidings/core/testing';
import { createSqliteStore, type SqliteStore } from '@tidings/store-sqlite';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_STORE_DURABILITY } from '../store/durability.js';
import { runDashboardStoreConformance } from '../testing/dashboard-store-conformance.js';
import { createSqliteDashboardStore } from './dashboard-store.js';

runDashboardStoreConformance('sqlite :memory:', async () => {
  const store = createSqliteStore({ path: ':memory:' });
  return { store, dashboardStore: createSqliteDashboardStore(store) };
});

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

/** `store` with a flush that resolves only when the test says so, counting the flushes asked for. */
function withManualFlush(store: SqliteStore) {
  const waiting: (() => void)[] = [];
  const flushing: SqliteStore = {
    ...store,
    capabilities: {
      ...store.capabilities,
      database: {
        ...store.capabilities.database,
        flush: () => new Promise<void>((resolve) => waiting.push(resolve)),
      },
    },
  };
  return { flushing, waiting };
}

describe('the SQLite dashboard store', () => {
  it('names every method in the durability table, so that none skips the flush by being forgotten', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    try {
      expect(methodsOf(createSqliteDashboardStore(store))).toEqual(Object.keys(DASHBOARD_STORE_DURABILITY).sort());
    } finally {
      await store.close();
    }
  });

  it("answers a durable write once the store's flush is done, and a redoable one at once", async () => {
    const store = createSqliteStore({ path: ':memory:' });
    try {
      const { flushing, waiting } = withManualFlush(store);
      const dashboard = createSqliteDashboardStore(flushing);
      const account = await store.createAccount({
        id: newId('acct', T0),
        email: 'a@example.com',
        verified: true,
        now: T0,
      });

      // A new session may be lost with a power cut: it does not wait.
      await dashboard.createSession({
        hash: 'h1',
        accountId: account.id,
        now: T0,
        idleExpiresAt: T0 + 60_000,
        absoluteExpiresAt: T0 + 120_000,
      });
      expect(waiting).toHaveLength(0);

      let answered = false;
      const setPassword = dashboard.setAccountPassword({ id: account.id, passwordHash: 'scrypt$x' }).then((set) => {
        answered = true;
        return set;
      });
      await new Promise((resolve) => setImmediate(resolve));
      // Committed on the store's connection, and not answered before its flush.
      expect((await dashboard.getDashboardAccount(account.id))?.passwordHash).toBe('scrypt$x');
      expect(answered).toBe(false);
      expect(waiting).toHaveLength(1);
      waiting.shift()!();
      expect(await setPassword).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('refuses a store that is not a SQLite one', () => {
    expect(() => createSqliteDashboardStore({ capabilities: {} } as unknown as SqliteStore)).toThrow(
      'createSqliteDashboardStore needs a store made by createSqliteStore',
    );
  });
});
