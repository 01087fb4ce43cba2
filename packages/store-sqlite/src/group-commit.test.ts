import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGroupCommit } from './group-commit.js';

let db: Database.Database;
beforeEach(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (v INTEGER)');
});
afterEach(() => {
  db.close();
});

describe('group commit: afterCommit', () => {
  it('settles the writes of a group only once afterCommit resolved, after the commit', async () => {
    let release: () => void = () => {};
    const rowsSeen: number[] = [];
    const commit = createGroupCommit(db, {
      begin: () => null,
      end: () => {},
      afterCommit: () => {
        rowsSeen.push(db.prepare('SELECT count(*) FROM t').pluck().get() as number);
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    let settled = 0;
    const writes = [1, 2].map((v) =>
      commit.run(() => db.prepare('INSERT INTO t VALUES (?)').run(v)).then(() => settled++),
    );
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // Committed (outside a transaction, both rows are there), but not yet answered.
    expect(db.inTransaction).toBe(false);
    expect(rowsSeen).toEqual([2]);
    expect(settled).toBe(0);
    release();
    await Promise.all(writes);
    expect(settled).toBe(2);
  });

  it('rejects every write of the group when afterCommit fails', async () => {
    const commit = createGroupCommit(db, {
      begin: () => null,
      end: () => {},
      afterCommit: () => Promise.reject(new Error('flush failed')),
    });
    const writes = [1, 2].map((v) => commit.run(() => db.prepare('INSERT INTO t VALUES (?)').run(v)));
    for (const write of writes) await expect(write).rejects.toThrow('flush failed');
  });

  it('settles a write that is not durable at the commit, without waiting for afterCommit', async () => {
    let release: () => void = () => {};
    let flushes = 0;
    const commit = createGroupCommit(db, {
      begin: () => null,
      end: () => {},
      afterCommit: () => {
        flushes++;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    const insert = (v: number) => () => db.prepare('INSERT INTO t VALUES (?)').run(v);
    // Alone in its group: no flush at all.
    await commit.run(insert(1), { durable: false });
    expect(flushes).toBe(0);

    // With a durable write in the same group: one flush, which only the durable write waits for.
    let durableSettled = false;
    const durable = commit.run(insert(2)).then(() => {
      durableSettled = true;
    });
    await commit.run(insert(3), { durable: false });
    expect(flushes).toBe(1);
    expect(durableSettled).toBe(false);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(3);
    release();
    await durable;
    expect(durableSettled).toBe(true);
  });
});
