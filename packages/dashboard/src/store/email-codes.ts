/** What a one-time code proves: an address, a password reset, an invitation, a sign-in. */
export type EmailCodePurpose = 'verify' | 'reset' | 'invite' | 'sign-in';

/** Outcome of {@link EmailCodeStore.consumeEmailCode}. */
export type ConsumeEmailCodeResult =
  /** The code matched and is now used up. */
  | { kind: 'valid' }
  /** Wrong code; `attemptsLeft` more tries before the code is void. */
  | { kind: 'invalid'; attemptsLeft: number }
  /** No usable code: none was issued, it expired, was used, or its tries ran out. */
  | { kind: 'missing' };

/** An invitation that still works: its code is stored, only hashed. */
export interface InvitationRecord {
  email: string;
  /** The email of the operator who sent it; null for invitations sent before this was kept. */
  invitedBy: string | null;
  createdAt: number;
  expiresAt: number;
}

/**
 * One-time codes mailed to an address (verification, password reset, invitation, sign-in),
 * stored only hashed, one per address and purpose; an invitation is the code of purpose `invite`.
 */
export interface EmailCodeStore {
  /** Issues a code for (email, purpose), replacing any earlier one, with no tries used. */
  putEmailCode(input: {
    email: string;
    purpose: EmailCodePurpose;
    codeHash: string;
    now: number;
    expiresAt: number;
    /** Who asked for it, for an invitation: the operator's email. @default null */
    issuedBy?: string | null;
  }): Promise<void>;
  /**
   * Checks a code: a match before expiry uses it up; a miss counts one try, and the code is
   * void once `maxAttempts` tries missed. Concurrent checks never exceed `maxAttempts` tries.
   */
  consumeEmailCode(input: {
    email: string;
    purpose: EmailCodePurpose;
    codeHash: string;
    now: number;
    maxAttempts: number;
  }): Promise<ConsumeEmailCodeResult>;
  /** True when a code for (email, purpose) exists and has not expired at `now` (it is not used up). */
  hasEmailCode(input: { email: string; purpose: EmailCodePurpose; now: number }): Promise<boolean>;
  /**
   * The invitations that still work at `now` (not expired, not used, not revoked, fewer than
   * `maxAttempts` tries missed), newest first, at most `limit`; only the one of `email` when given.
   */
  listInvitations(input: {
    now: number;
    maxAttempts: number;
    limit: number;
    email?: string;
  }): Promise<InvitationRecord[]>;
  /** Voids the invitation of an address at once; false when it had none that still works at `now`. */
  revokeInvitation(input: { email: string; now: number; maxAttempts: number }): Promise<boolean>;
}
