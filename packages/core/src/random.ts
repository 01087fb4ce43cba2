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
  const size = alphabet.length;
  if (size < 2 || size > 256) throw new RangeError('alphabet must have 2 to 256 symbols');
  const ceiling = 256 - (256 % size);
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < ceiling) out += alphabet[byte % size];
  }
  return out;
}
