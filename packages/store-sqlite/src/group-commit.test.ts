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

describe('group commit: writes asked for during a flush', () => {
  /** A group commit whose flushes wait for `release(i)`, counting groups and flushes. */
  function controlledCommit() {
    const releases: (() => void)[] = [];
    const rowsAtFlush: number[] = [];
    let groups = 0;
    const commit = createGroupCommit(db, {
      begin: () => {
        groups++;
        return null;
      },
      end: () => {},
      afterCommit: () => {
        rowsAtFlush.push(count());
        return new Promise<void>((resolve) => {
          releases.push(resolve);
        });
      },
    });
    return { commit, releases, rowsAtFlush, groups: () => groups };
  }
  const count = () => db.prepare('SELECT count(*) FROM t').pluck().get() as number;
  const insert = (v: number) => () => db.prepare('INSERT INTO t VALUES (?)').run(v);
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('holds them, uncommitted and unanswered, and commits them as one group once the flush is done', async () => {
    const { commit, releases, rowsAtFlush, groups } = controlledCommit();
    const settled: number[] = [];
    const first = commit.run(insert(1)).then(() => settled.push(1));
    await turn();
    expect(count()).toBe(1);
    expect(releases).toHaveLength(1);

    // Three writes in three turns while the first group's flush runs.
    const later = [2, 3, 4].map((v) => commit.run(insert(v)).then(() => settled.push(v)));
    await turn();
    await turn();
    await turn();
    expect(count()).toBe(1);
    expect(groups()).toBe(1);
    expect(settled).toEqual([]);

    releases[0]!();
    await first;
    await turn();
    // Committed together, in one transaction, then flushed once; none answered before that flush.
    expect(count()).toBe(4);
    expect(groups()).toBe(2);
    expect(rowsAtFlush).toEqual([1, 4]);
    expect(settled).toEqual([1]);

    releases[1]!();
    await Promise.all(later);
    expect(settled).toEqual([1, 2, 3, 4]);
  });

  it('commits held writes of a group whose flush failed with the next group, and rejects only the failed group', async () => {
    const failures: (() => void)[] = [];
    let flushes = 0;
    const commit = createGroupCommit(db, {
      begin: () => null,
      end: () => {},
      afterCommit: () => {
        flushes++;
        if (flushes === 1) {
          return new Promise<void>((_, reject) => {
            failures.push(() => reject(new Error('flush failed')));
          });
        }
        return Promise.resolve();
      },
    });
    const first = commit.run(insert(1));
    await turn();
    const held = commit.run(insert(2));
    await turn();
    failures[0]!();
    await expect(first).rejects.toThrow('flush failed');
    await expect(held).resolves.toBeDefined();
    expect(flushes).toBe(2);
  });

  it('lets writes that need no flush wait with the rest, and commits everything held when flushed before closing', async () => {
    const { commit, releases } = controlledCommit();
    const first = commit.run(insert(1));
    await turn();
    let bookkeeping = false;
    const sent = commit.run(insert(2), { durable: false }).then(() => {
      bookkeeping = true;
    });
    const durable = commit.run(insert(3));
    await turn();
    expect(count()).toBe(1);
    expect(bookkeeping).toBe(false);

    commit.flush();
    expect(count()).toBe(3);
    await sent;
    expect(bookkeeping).toBe(true);
    for (const release of releases) release();
    await Promise.all([first, durable]);
  });
});
