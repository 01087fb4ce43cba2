const BYTES_PER_BATCH = 64;

/**
 * Draws `length` characters uniformly from `alphabet` with the platform CSPRNG. Bytes at or
 * above the largest multiple of the alphabet's size are rejected, so there is no modulo bias.
 */
export function randomString(length: number, alphabet: string): string {
  const size = alphabet.length;
  if (size < 2 || size > 256) throw new RangeError('alphabet must have 2 to 256 symbols');
  const ceiling = 256 - (256 % size);
  const bytes = new Uint8Array(BYTES_PER_BATCH);
  let out = '';
  while (out.length < length) {
    crypto.getRandomValues(bytes);
    for (const byte of bytes) {
      if (byte >= ceiling) continue;
      out += alphabet[byte % size];
      if (out.length === length) break;
    }
  }
  return out;
}
