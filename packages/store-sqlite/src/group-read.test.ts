import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createGroupRead } from './group-read.js';

const opened: Database.Database[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) if (db.open) db.close();
});

function database(): Database.Database {
  const db = new Database(':memory:');
  opened.push(db);
  db.exec('CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)');
  return db;
}

describe('group read', () => {
  it('runs the reads of one turn together, inside one transaction, after the turn', async () => {
    const db = database();
    const groupRead = createGroupRead(db);
    const value = db.prepare('SELECT v FROM t').pluck();
    const seen: { inTransaction: boolean; value: unknown }[] = [];
    const read = () => {
      seen.push({ inTransaction: db.inTransaction, value: value.get() });
      return seen.length;
    };
    const first = groupRead.run(read);
    const second = groupRead.run(read);
    // Nothing ran yet; a write made in the same turn is seen by both.
    expect(seen).toEqual([]);
    db.prepare('UPDATE t SET v = 2').run();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(seen).toEqual([
      { inTransaction: true, value: 2 },
      { inTransaction: true, value: 2 },
    ]);
    expect(db.inTransaction).toBe(false);
  });

  it('rejects a read that throws alone, and queues reads asked for meanwhile into the next group', async () => {
    const db = database();
    const groupRead = createGroupRead(db);
    const groups: number[] = [];
    let group = 0;
    const failing = groupRead.run(() => {
      throw new Error('boom');
    });
    const fine = groupRead.run(() => {
      groups.push(group);
      return 'fine';
    });
    await expect(failing).rejects.toThrow('boom');
    expect(await fine).toBe('fine');
    group = 1;
    // Asked for after the first group ran: a group of its own, also in a transaction.
    const inTransaction = await groupRead.run(() => {
      groups.push(group);
      return db.inTransaction;
    });
    expect(inTransaction).toBe(true);
    expect(groups).toEqual([0, 1]);
  });

  it('runs queued reads at once on flush, and rejects those left when the database is closed', async () => {
    const db = database();
    const groupRead = createGroupRead(db);
    const value = db.prepare('SELECT v FROM t').pluck();
    const flushed = groupRead.run(() => value.get());
    groupRead.flush();
    db.close();
    expect(await flushed).toBe(1);
    await expect(groupRead.run(() => value.get())).rejects.toThrow(/not open/);
  });
});
