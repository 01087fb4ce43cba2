import type { KeyMode } from '../ports/records.js';
import { randomString } from './random.js';
import { sha256Hex } from './sha256.js';

/** The 62 letters and digits that keys, tokens and secrets are drawn from. */
export const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const API_KEY_PATTERN = /^sk_(live|test)_[A-Za-z0-9]{32}$/;
/** A connect token: `ct_` and 32 letters and digits. */
export const CONNECT_TOKEN_PATTERN = /^ct_[A-Za-z0-9]{32}$/;
/** A browser secret: `bs_` and 32 letters and digits. */
export const BROWSER_SECRET_PATTERN = /^bs_[A-Za-z0-9]{32}$/;

/** How many leading characters of a key are stored to tell keys apart. */
export const KEY_PREFIX_LENGTH = 12;

/** SHA-256 of a secret, as lowercase hex: the only form in which keys, tokens and secrets are stored. */
export function hashSecret(value: string): string {
  return sha256Hex(value);
}

/** True when `value` is `sk_live_` or `sk_test_` followed by 32 letters and digits. */
export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/** The mode a well-formed key declares. */
export function modeOfApiKey(value: string): KeyMode {
  return value.startsWith('sk_live_') ? 'live' : 'test';
}

/** A new API key of the given mode. */
export function generateApiKey(mode: KeyMode): string {
  return `sk_${mode}_${randomString(32, ALPHANUMERIC)}`;
}

/** The first 12 characters of a key, kept to tell keys apart. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}

/** A new connect token, `ct_` and 32 letters and digits. */
export function generateConnectToken(): string {
  return `ct_${randomString(32, ALPHANUMERIC)}`;
}

/** True when `value` has the shape of a connect token. */
export function isWellFormedConnectToken(value: string): boolean {
  return CONNECT_TOKEN_PATTERN.test(value);
}

/** A new browser secret, `bs_` and 32 letters and digits. */
export function generateBrowserSecret(): string {
  return `bs_${randomString(32, ALPHANUMERIC)}`;
}

/** True when `value` has the shape of a browser secret. */
export function isWellFormedBrowserSecret(value: string): boolean {
  return BROWSER_SECRET_PATTERN.test(value);
}
