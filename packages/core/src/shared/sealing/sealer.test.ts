import { describe, expect, it } from 'vitest';
import { generateSecretKey, parseSecretKey, parseSecretKeys, SecretKeyError } from './keyring.js';
import { createSecretSealer, isSealed, SEALED_PREFIX, sealedKeyId, unsealedSecrets } from './sealer.js';

const place = { table: 'webhook_endpoints', id: 'whe_1', projectId: 'proj_1' };
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('sealing a secret', () => {
  it('seals under the first key and opens it again for the same row', () => {
    const sealer = createSecretSealer(parseSecretKeys([generateSecretKey()], 'test'));
    const sealed = sealer.seal(secret, place);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed.startsWith(`${SEALED_PREFIX}${sealer.sealingKeyId}:`)).toBe(true);
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealer.open(sealed, place)).toEqual({ kind: 'opened', value: secret, keyId: sealer.sealingKeyId });
  });

  it('seals the same value differently each time (a random nonce)', () => {
    const sealer = createSecretSealer(parseSecretKeys([generateSecretKey()], 'test'));
    expect(sealer.seal(secret, place)).not.toBe(sealer.seal(secret, place));
  });

  it('does not open a value copied to another row, table or project', () => {
    const sealer = createSecretSealer(parseSecretKeys([generateSecretKey()], 'test'));
    const sealed = sealer.seal(secret, place);
    const keyId = sealer.sealingKeyId;
    expect(sealer.open(sealed, { ...place, id: 'whe_2' })).toEqual({ kind: 'broken', keyId });
    expect(sealer.open(sealed, { ...place, projectId: 'proj_2' })).toEqual({ kind: 'broken', keyId });
    expect(sealer.open(sealed, { table: 'vapid_keys', id: '1', projectId: null })).toEqual({ kind: 'broken', keyId });
  });

  it('does not open an altered value', () => {
    const sealer = createSecretSealer(parseSecretKeys([generateSecretKey()], 'test'));
    const sealed = sealer.seal(secret, place);
    const last = sealed.at(-2) === 'A' ? 'B' : 'A';
    const altered = `${sealed.slice(0, -2)}${last}${sealed.at(-1)}`;
    expect(sealer.open(altered, place).kind).toBe('broken');
    expect(sealer.open(`${SEALED_PREFIX}${sealer.sealingKeyId}:!!`, place).kind).toBe('broken');
  });

  it('names a key it does not hold, and opens with any key it holds', () => {
    const [oldKey, newKey] = [generateSecretKey(), generateSecretKey()];
    const old = createSecretSealer(parseSecretKeys([oldKey], 'test'));
    const sealed = old.seal(secret, place);
    const other = createSecretSealer(parseSecretKeys([newKey], 'test'));
    expect(other.open(sealed, place)).toEqual({ kind: 'unknown-key', keyId: old.sealingKeyId });
    expect(unsealedSecrets.open(sealed, place)).toEqual({ kind: 'unknown-key', keyId: old.sealingKeyId });
    const both = createSecretSealer(parseSecretKeys([newKey, oldKey], 'test'));
    expect(both.open(sealed, place)).toEqual({ kind: 'opened', value: secret, keyId: old.sealingKeyId });
    expect(sealedKeyId(both.seal(secret, place))).toBe(other.sealingKeyId);
    expect(both.keyIds).toEqual([other.sealingKeyId, old.sealingKeyId]);
  });

  it('stores values as they are without a key, and reads clear values with one', () => {
    expect(unsealedSecrets.sealingKeyId).toBeNull();
    expect(unsealedSecrets.seal(secret, place)).toBe(secret);
    const sealer = createSecretSealer(parseSecretKeys([generateSecretKey()], 'test'));
    expect(sealer.open(secret, place)).toEqual({ kind: 'clear', value: secret });
  });
});

describe('secrets keys', () => {
  it('reads base64 and base64url of 32 bytes, with the same id either way', () => {
    const key = generateSecretKey();
    const url = key.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
    expect(parseSecretKey(url, 'k').id).toBe(parseSecretKey(key, 'k').id);
    expect(parseSecretKey(key, 'k').id).toMatch(/^[0-9a-f]{12}$/);
    expect(parseSecretKey(key, 'k').id).not.toBe(parseSecretKey(generateSecretKey(), 'k').id);
  });

  it('refuses a key of another length or form, and the same key twice, without printing it', () => {
    const short = btoa('x'.repeat(16));
    expect(() => parseSecretKey(short, 'TIDINGS_SECRETS_KEY')).toThrow(SecretKeyError);
    expect(() => parseSecretKey(short, 'TIDINGS_SECRETS_KEY')).toThrow(/TIDINGS_SECRETS_KEY is not a secrets key/);
    expect(() => parseSecretKey('not base64 at all!', 'k')).toThrow(SecretKeyError);
    const key = generateSecretKey();
    expect(() => parseSecretKeys([key, key], 'keys')).toThrow(/twice/);
    try {
      parseSecretKey(`${key}AAAA`, 'k');
    } catch (error) {
      expect((error as Error).message).not.toContain(key);
    }
    expect(parseSecretKeys([' ', key, ''], 'keys')).toHaveLength(1);
  });
});
