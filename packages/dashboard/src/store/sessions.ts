import type { DashboardAccount } from './accounts.js';

/** A dashboard session, found by the SHA-256 of its id; the id itself is never stored. */
export interface SessionRecord {
  accountId: string;
  createdAt: number;
  /** The session ends here unless it is used before; each use moves it on. */
  idleExpiresAt: number;
  /** The session ends here whatever happens. */
  absoluteExpiresAt: number;
}

/**
 * A session as its account's list shows it. `ref` names it for ending it: the first 16 hex
 * digits of the SHA-256 of its id, which neither is nor leads to the id.
 */
export interface SessionSummary {
  ref: string;
  createdAt: number;
  lastUsedAt: number;
  userAgent: string | null;
  ip: string | null;
}

/** Sessions: started at sign-in, resumed by each request, listed and ended by their account. */
export interface SessionStore {
  /**
   * Stores a new session under the SHA-256 of its id, with the browser's user agent (cut to 200
   * characters by the caller) and the client IP, when known.
   */
  createSession(input: {
    hash: string;
    accountId: string;
    now: number;
    idleExpiresAt: number;
    absoluteExpiresAt: number;
    userAgent?: string | null;
    ip?: string | null;
  }): Promise<void>;
  /**
   * Finds a session that has not expired at `now`, moves its idle expiry to
   * `min(idleExpiresAt, absoluteExpiresAt)` and records `now` as its last use; an expired one is
   * deleted and answers null.
   */
  resumeSession(input: {
    hash: string;
    now: number;
    idleExpiresAt: number;
  }): Promise<{ session: SessionRecord; account: DashboardAccount } | null>;
  /** Ends one session. */
  deleteSession(hash: string): Promise<void>;
  /** Ends every session of an account (after a password reset). */
  deleteAccountSessions(accountId: string): Promise<void>;
  /** The account's sessions that have not expired at `now`, the most recently used first. */
  listAccountSessions(input: { accountId: string; now: number }): Promise<SessionSummary[]>;
  /** Ends the account's session whose {@link SessionSummary.ref} is `ref`; false when it has none. */
  deleteAccountSession(input: { accountId: string; ref: string }): Promise<boolean>;
  /** Ends every session of the account but the one whose hash is `keepHash`; how many ended. */
  deleteOtherSessions(input: { accountId: string; keepHash: string }): Promise<number>;
}
