import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@tidings/core';
import { afterEach, beforeEach } from 'vitest';
import type { SqliteStoreOptions } from '../options.js';
import { createSqliteStore, type SqliteStore } from '../sqlite-store.js';

/**
 * A fresh database file for each test of the calling file, and the stores opened on it, all
 * closed and removed after the test.
 */
export function useStoreFile() {
  let dir = '';
  let path = '';
  const opened: Store[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tidings-sqlite-'));
    path = join(dir, 'tidings.db');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** This test's database file. */
    get path(): string {
      return path;
    },
    /** A store on this test's file, closed after the test. */
    open(options: Omit<SqliteStoreOptions, 'path'> = {}): SqliteStore {
      const store = createSqliteStore({ ...options, path });
      opened.push(store);
      return store;
    },
  };
}
