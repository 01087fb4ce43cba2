import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** The part of `node:crypto` used here, named without depending on Node's types. */
interface NativeCrypto {
  /** One-shot digest: no Hash object per call. */
  hash?: (algorithm: 'sha256', data: string, outputEncoding: 'hex') => string;
  createHash(algorithm: 'sha256'): { update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string } };
}

/** SHA-256 of the UTF-8 bytes of `value` as lowercase hex, in JavaScript: runs on any runtime. */
export function portableSha256Hex(value: string): string {
  return bytesToHex(sha256(utf8ToBytes(value)));
}

/**
 * `node:crypto` where the runtime has it (Node, Bun, Deno's Node layer), reached through
 * `process.getBuiltinModule` so that the core imports nothing of Node's: a request hashes the
 * API key it presents, and the native one-shot digest is several times faster than the portable
 * one or a Hash object per call (bench/NOTES.md#figures-behind-the-design gives the figures).
 */
function loadNativeSha256Hex(): ((value: string) => string) | null {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const crypto = runtime?.getBuiltinModule?.('node:crypto') as NativeCrypto | undefined;
  if (typeof crypto?.hash === 'function') {
    const hash = crypto.hash;
    return (value) => hash('sha256', value, 'hex');
  }
  if (typeof crypto?.createHash !== 'function') return null;
  return (value) => crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

/** SHA-256 of the UTF-8 bytes of `value` as lowercase hex: native where possible, the same bytes either way. */
export const sha256Hex: (value: string) => string = loadNativeSha256Hex() ?? portableSha256Hex;
