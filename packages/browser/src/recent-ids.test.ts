import { describe, expect, it } from 'vitest';
import { createRecentIds } from './recent-ids.js';

describe('createRecentIds', () => {
  it('reports a second add of an id as a duplicate', () => {
    const ids = createRecentIds(10);
    expect(ids.add('att_1')).toBe(true);
    expect(ids.add('att_2')).toBe(true);
    expect(ids.add('att_1')).toBe(false);
  });

  it('forgets the oldest id beyond its limit, so memory stays bounded', () => {
    const ids = createRecentIds(3);
    for (const id of ['a', 'b', 'c', 'd']) ids.add(id);
    expect(ids.newest(10)).toEqual(['b', 'c', 'd']);
    expect(ids.add('a')).toBe(true);
  });

  it('starts from stored ids and gives back the newest ones, oldest first', () => {
    const ids = createRecentIds(1000, ['x', 'y']);
    ids.add('z');
    expect(ids.add('x')).toBe(false);
    expect(ids.newest(2)).toEqual(['y', 'z']);
    expect(ids.newest(0)).toEqual([]);
  });
});
