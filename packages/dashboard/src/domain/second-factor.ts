import { randomBytes, randomInt } from 'node:crypto';
import { hashSecret } from '@tidings/core';

/** A pending sign-in waits 10 minutes for its second factor; a WebAuthn challenge lives 5. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60_000;
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** How many recovery codes an account gets at once. */
export const RECOVERY_CODE_COUNT = 10;

/**
 * The pending sign-in cookie's name: `__Host-` over https, as the session cookie
 * ({@link sessionCookieName}).
 */
export function pendingCookieName(secure: boolean): string {
  return secure ? '__Host-tidings_pending' : 'tidings_pending';
}

/** A new pending sign-in token (32 random bytes, base64url) and the hash the store keeps. */
export function newPendingToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSecret(token) };
}

/** The hash of a pending sign-in cookie's value; null when it is not one. */
export function pendingTokenHash(token: string | undefined): string | null {
  return token && /^[A-Za-z0-9_-]{43}$/.test(token) ? hashSecret(token) : null;
}

// No 0/O, 1/I/L, U: codes are read off paper and typed by hand.
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A recovery code: ten characters (about 49 bits) from the CSPRNG, shown as `XXXXX-XXXXX`. */
export function generateRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * How a recovery code is stored: the SHA-256 of its account and itself, as typed without case,
 * spaces or dashes. The codes are random enough that a fast hash keeps them: what limits
 * guessing is the throttle and the one use of each.
 */
export function hashRecoveryCode(accountId: string, code: string): string {
  return hashSecret(`recovery\n${accountId}\n${code.toUpperCase().replace(/[\s-]/g, '')}`);
}

/**
 * The WebAuthn relying party: the dashboard's public URL (the Tidings instance's `publicUrl`)
 * when set, else the origin the request came to. The RP ID is that origin's host name, so a
 * passkey is bound to the host the dashboard is served from.
 */
export function relyingParty(publicUrl: string | null, requestUrl: string): { origin: string; rpID: string } {
  const origin = publicUrl ?? new URL(requestUrl).origin;
  return { origin, rpID: new URL(origin).hostname };
}

/** The store key of a challenge: registering (by session) or signing in (by pending sign-in). */
export function challengeKey(purpose: 'register' | 'sign-in', ownerHash: string): string {
  return `${purpose}:${ownerHash}`;
}
