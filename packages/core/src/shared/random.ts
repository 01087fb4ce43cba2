/**
 * Bytes drawn from the CSPRNG at a time. Every id and secret needs a few dozen bytes, and one
 * `getRandomValues` call per id cost more than the rest of making it; each byte of the pool is
 * still used once, for one character, and never again.
 */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomByte(): number {
  if (poolOffset === POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/**
 * Draws `length` characters uniformly from `alphabet` with the platform CSPRNG. Bytes at or
 * above the largest multiple of the alphabet's size are rejected, so there is no modulo bias.
 */
export function randomString(length: number, alphabet: string): string {
  const codes = new Array<number>(length);
  fillRandomCodes(codes, 0, length, alphabet);
  return stringOfCodes(codes);
}

/** Codes passed to one `String.fromCharCode` call at most (its arguments live on the stack). */
const CODES_PER_CALL = 4096;

/** The string of UTF-16 `codes`, in one call when they are few (every id and secret). */
export function stringOfCodes(codes: number[]): string {
  if (codes.length <= CODES_PER_CALL) return String.fromCharCode(...codes);
  let text = '';
  for (let at = 0; at < codes.length; at += CODES_PER_CALL) {
    text += String.fromCharCode(...codes.slice(at, at + CODES_PER_CALL));
  }
  return text;
}

/**
 * Writes `count` character codes drawn as by {@link randomString} into `codes` from `start`,
 * for a caller that builds one string of several parts: appending part by part, or character
 * by character, made a string for each.
 */
export function fillRandomCodes(codes: number[], start: number, count: number, alphabet: string): void {
  const size = alphabet.length;
  if (size < 2 || size > 256) throw new RangeError('alphabet must have 2 to 256 symbols');
  const ceiling = 256 - (256 % size);
  const end = start + count;
  let at = start;
  while (at < end) {
    const byte = randomByte();
    if (byte < ceiling) codes[at++] = alphabet.charCodeAt(byte % size);
  }
}
