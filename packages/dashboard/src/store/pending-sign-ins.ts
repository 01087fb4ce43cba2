/** A sign-in whose password (or code) matched, waiting for its second factor. */
export interface PendingSignInRecord {
  accountId: string;
  /** The dashboard page the sign-in leads to. */
  next: string;
  createdAt: number;
  expiresAt: number;
}

/**
 * What lasts the few minutes of a second factor: sign-ins waiting for it, and the WebAuthn
 * challenges a passkey form answers. Each is taken once.
 */
export interface PendingSignInStore {
  /** Stores a sign-in waiting for its second factor, under the SHA-256 of its token. */
  createPendingSignIn(input: PendingSignInRecord & { hash: string }): Promise<void>;
  /** The pending sign-in of a hash, if it has not expired at `now`. */
  findPendingSignIn(input: { hash: string; now: number }): Promise<PendingSignInRecord | null>;
  /** Ends a pending sign-in and answers it, if it had not expired at `now`: one use only. */
  takePendingSignIn(input: { hash: string; now: number }): Promise<PendingSignInRecord | null>;

  /** Stores the WebAuthn challenge of `key`, replacing any earlier one. */
  putWebAuthnChallenge(input: { key: string; challenge: string; expiresAt: number }): Promise<void>;
  /** Removes the challenge of `key` and answers it, if it had not expired at `now`: one use only. */
  takeWebAuthnChallenge(input: { key: string; now: number }): Promise<string | null>;
}
