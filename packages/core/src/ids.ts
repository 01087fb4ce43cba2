import { randomString } from './random.js';

/** The prefixes of every kind of id. */
export type IdPrefix = 'acct' | 'proj' | 'key' | 'ntf' | 'att' | 'brw' | 'req' | 'aud';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Makes a prefixed id: 10 characters of millisecond time (Crockford base32, so ids sort by
 * creation time) and 16 random characters (80 bits), e.g. `ntf_01jd3x…`.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let time = '';
  let rest = Math.max(0, Math.floor(now));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[rest % 32] + time;
    rest = Math.floor(rest / 32);
  }
  return `${prefix}_${time}${randomString(16, CROCKFORD)}`;
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
