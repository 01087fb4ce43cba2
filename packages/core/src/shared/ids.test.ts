import { describe, expect, it } from 'vitest';
import { type IdPrefix, idPattern, idTimeFloor, newId } from './ids.js';

const PREFIXES: IdPrefix[] = ['acct', 'proj', 'key', 'ntf', 'att', 'brw', 'req', 'aud'];
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** The millisecond time an id carries in its 10 characters after the prefix. */
function timeOf(id: string): number {
  const time = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  return [...time].reduce((value, char) => value * 32 + CROCKFORD.indexOf(char), 0);
}

describe('newId', () => {
  it('is the prefix, `_` and 26 Crockford characters, for every prefix', () => {
    for (const prefix of PREFIXES) {
      const id = newId(prefix, Date.UTC(2026, 10, 23));
      expect(id).toMatch(idPattern(prefix));
      expect(id.startsWith(`${prefix}_`)).toBe(true);
    }
  });

  it('carries its time, so that ids sort by creation time', () => {
    const times = [0, 1, 31, 32, 1_000, Date.UTC(2026, 0, 1), Date.UTC(2026, 10, 23, 11, 40), 2 ** 45];
    const ids = times.map((time) => newId('ntf', time));
    expect(ids.map(timeOf)).toEqual(times);
    expect([...ids].sort()).toEqual(ids);
    expect(newId('att', 0).slice(4, 14)).toBe('0000000000');
  });

  it('differs in its random part between ids of the same millisecond', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('att', 1_700_000_000_000));
    expect(new Set(ids).size).toBe(5_000);
    expect(new Set(ids.map((id) => id.slice(14))).size).toBe(5_000);
  });
});

describe('idTimeFloor', () => {
  it('sorts after every id made before the time and at or before every id made from it on', () => {
    const at = Date.UTC(2026, 0, 1, 12);
    const floor = idTimeFloor('ntf', at);
    for (let i = 0; i < 50; i++) {
      expect(newId('ntf', at - 1 - i) < floor).toBe(true);
      expect(newId('ntf', at + i) >= floor).toBe(true);
    }
    expect(newId('ntf', at).startsWith(floor)).toBe(true);
  });
});
