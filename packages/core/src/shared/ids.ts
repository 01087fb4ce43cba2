import { fillRandomCodes, stringOfCodes } from './random.js';

/** The prefixes of every kind of id. */
export type IdPrefix = 'acct' | 'proj' | 'key' | 'ntf' | 'att' | 'brw' | 'req' | 'aud' | 'job' | 'whe' | 'msg' | 'ins';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * One array of codes per id length, reused by every id of that length: an id is made in one
 * synchronous call, so no two use an array at once, and only the id's string is allocated.
 */
const SCRATCH = new Map<number, number[]>();

function scratchOfLength(length: number): number[] {
  let codes = SCRATCH.get(length);
  if (codes === undefined) {
    codes = new Array<number>(length).fill(0);
    SCRATCH.set(length, codes);
  }
  return codes;
}

/**
 * Makes a prefixed id: 10 characters of millisecond time (Crockford base32, so ids sort by
 * creation time) and 16 random characters (80 bits), e.g. `ntf_01jd3x…`.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  // One flat string from one array of codes: the prefix, `_`, the time, the random part.
  const head = prefix.length + 1;
  const codes = scratchOfLength(head + 26);
  for (let i = 0; i < prefix.length; i++) codes[i] = prefix.charCodeAt(i);
  codes[prefix.length] = 95; // '_'
  let rest = Math.max(0, Math.floor(now));
  for (let i = head + 9; i >= head; i--) {
    codes[i] = CROCKFORD.charCodeAt(rest % 32);
    rest = Math.floor(rest / 32);
  }
  fillRandomCodes(codes, head + 10, 16, CROCKFORD);
  return stringOfCodes(codes);
}

/**
 * The time part of ids made at `ms`, after the prefix: every id of this prefix made at `ms` or
 * later sorts at or after it, every one made before sorts before it. A range of ids is thus a
 * range of times, which an index on ids can serve.
 */
export function idTimeFloor(prefix: IdPrefix, ms: number): string {
  let rest = Math.max(0, Math.floor(ms));
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[rest % 32]! + time;
    rest = Math.floor(rest / 32);
  }
  return `${prefix}_${time}`;
}

/** Compiled once per prefix, not per call: a read checks its id on every request. */
const ID_PATTERNS = new Map<IdPrefix, RegExp>();

/** The shape of an id with this prefix: the prefix, `_`, and 26 Crockford base32 characters. */
export function idPattern(prefix: IdPrefix): RegExp {
  let pattern = ID_PATTERNS.get(prefix);
  if (pattern === undefined) {
    pattern = new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`);
    ID_PATTERNS.set(prefix, pattern);
  }
  return pattern;
}

/** True when `value` has the shape of an id with this prefix. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return idPattern(prefix).test(value);
}
