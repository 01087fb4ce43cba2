import type { AccountRecord } from '@tidings/core';

/**
 * The dashboard's own port: what signing in to the web dashboard needs, kept out of the core's
 * `Store`. Passwords, the operator flag, sessions, one-time codes (verification, reset,
 * invitation, sign-in) and the projects' audit log. Projects, keys, usage and the log of sends
 * are the core's: the pages reach them through `tidings.admin`.
 *
 * A store package implements this port over the same database as its `Store` (for example
 * `createSqliteDashboardStore(store)`), and runs `runDashboardStoreConformance` from
 * `@tidings/dashboard/testing`. As in the core's ports, each method is one atomic operation and
 * times are passed in by the caller. Emails are compared as given: callers pass them trimmed and
 * lower-cased.
 */
export interface DashboardStore {
  /** The account whose email equals `email` (the oldest, if older tools made several). */
  findAccountByEmail(email: string): Promise<DashboardAccount | null>;
  /** The account with what signing in needs; null when unknown. */
  getDashboardAccount(id: string): Promise<DashboardAccount | null>;
  /** The ids of every operator account, in one read. */
  listOperatorIds(): Promise<string[]>;
  /**
   * A page of the accounts, oldest first, whose email or id contains `query` ignoring the case
   * of ASCII letters (every character matches itself: `%` and `_` are no wildcards; null: every
   * account), and how many match, in one read.
   */
  searchAccounts(input: { query: string | null; offset: number; limit: number }): Promise<{
    accounts: DashboardAccount[];
    total: number;
  }>;
  /** Creates an account with a password unless an account already has this email. */
  createAccountWithPassword(input: {
    id: string;
    email: string;
    passwordHash: string;
    verified: boolean;
    operator: boolean;
    now: number;
  }): Promise<CreateAccountWithPasswordResult>;
  /** Sets the password hash; false when the account is unknown. */
  setAccountPassword(input: { id: string; passwordHash: string }): Promise<boolean>;
  /** Sets the operator flag; null when the account is unknown. */
  setAccountOperator(input: { id: string; operator: boolean }): Promise<DashboardAccount | null>;

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
  /**
   * Changes an account's email, unless another account has it (checked and written in one
   * transaction, as {@link DashboardStore.createAccountWithPassword} does).
   */
  setAccountEmail(input: { id: string; email: string }): Promise<'changed' | 'email-taken' | 'not-found'>;
  /**
   * Deletes what the dashboard keeps of an account, before the account itself goes: its
   * sessions, the codes issued to `email`, and the audit log of its projects (present and
   * deleted) and of what it did.
   */
  deleteAccountDashboardData(input: { accountId: string; email: string }): Promise<void>;

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

  /** Stores a passkey (a WebAuthn credential) of an account. */
  addPasskey(input: PasskeyRecord): Promise<void>;
  /** An account's passkeys, oldest first. */
  listPasskeys(accountId: string): Promise<PasskeyRecord[]>;
  /** The passkey with this credential id, whatever its account; null when unknown. */
  findPasskey(credentialId: string): Promise<PasskeyRecord | null>;
  /** Records a sign-in with a passkey: its new signature counter and when it was used. */
  usePasskey(input: { credentialId: string; counter: number; now: number }): Promise<void>;
  /** Removes one of an account's passkeys; false when the account has no such passkey. */
  deletePasskey(input: { accountId: string; credentialId: string }): Promise<boolean>;

  /** Replaces every recovery code of an account by these (SHA-256 hashes; none clears them). */
  replaceRecoveryCodes(input: { accountId: string; hashes: string[]; now: number }): Promise<void>;
  /** Uses up one recovery code: true when the account had it, and then never again. */
  useRecoveryCode(input: { accountId: string; hash: string }): Promise<boolean>;
  /** How many unused recovery codes an account has. */
  countRecoveryCodes(accountId: string): Promise<number>;

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

  /**
   * Deletes what has expired at `now` and can no longer be used: sessions past their idle or
   * absolute end, email codes and invitations, pending sign-ins, WebAuthn challenges. The audit
   * log, passkeys and recovery codes are kept. Answers how many of each went.
   */
  purgeExpired(input: { now: number }): Promise<PurgedDashboardData>;

  /** Records one entry of the audit log. */
  appendAuditEvent(event: AuditEventRecord): Promise<void>;
  /**
   * The audit log, newest first, at most `limit` entries: only a project's with `projectId`, only
   * one actor's with `actor` (an entry's actor is its `actorEmail`, else its `actorName`).
   */
  listAuditEvents(input: { projectId?: string; actor?: string; limit: number }): Promise<AuditEventRecord[]>;
}

/** What {@link DashboardStore.purgeExpired} deleted. */
export interface PurgedDashboardData {
  sessions: number;
  codes: number;
  pendingSignIns: number;
  challenges: number;
}

/** An invitation that still works: its code is stored, only hashed. */
export interface InvitationRecord {
  email: string;
  /** The email of the operator who sent it; null for invitations sent before this was kept. */
  invitedBy: string | null;
  createdAt: number;
  expiresAt: number;
}

/** An account with what signing in to the dashboard needs. */
export interface DashboardAccount {
  account: AccountRecord;
  /** An scrypt hash (`scrypt$N$r$p$salt$hash`); null for an account that never set a password. */
  passwordHash: string | null;
  /** Operators see every account and project, and may suspend projects. */
  operator: boolean;
}

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

/** What a one-time code proves: an address, a password reset, an invitation, a sign-in. */
export type EmailCodePurpose = 'verify' | 'reset' | 'invite' | 'sign-in';

/** Outcome of {@link DashboardStore.consumeEmailCode}. */
export type ConsumeEmailCodeResult =
  /** The code matched and is now used up. */
  | { kind: 'valid' }
  /** Wrong code; `attemptsLeft` more tries before the code is void. */
  | { kind: 'invalid'; attemptsLeft: number }
  /** No usable code: none was issued, it expired, was used, or its tries ran out. */
  | { kind: 'missing' };

/** Outcome of {@link DashboardStore.createAccountWithPassword}. */
export type CreateAccountWithPasswordResult = { kind: 'created'; account: DashboardAccount } | { kind: 'email-taken' };

/** What the audit log records: who changed what in a project, when, from where. */
export type AuditAction =
  | 'project.created'
  | 'project.renamed'
  | 'project.inbox_retention_set'
  | 'project.suspended'
  | 'project.resumed'
  | 'project.deleted'
  | 'key.created'
  | 'key.revoked'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.disabled'
  | 'webhook.enabled'
  | 'webhook.deleted'
  | 'webhook.secret_rolled'
  | 'webhook.message_resent'
  | 'webhook.messages_replayed'
  | 'account.created'
  | 'account.verified'
  | 'account.operator_granted'
  | 'account.operator_revoked'
  | 'account.sign_in_code_issued'
  | 'invitation.sent'
  | 'invitation.revoked'
  | 'vapid_key.rotated';

/** Where a change was made: a page of the dashboard, or the operator CLI. */
export type AuditSource = 'dashboard' | 'cli';

/** One entry of the audit log. */
export interface AuditEventRecord {
  id: string;
  /** The project acted on; null for a change of an account or an invitation. */
  projectId: string | null;
  action: AuditAction;
  source: AuditSource;
  /** The account that acted; null for the operator CLI. */
  actorAccountId: string | null;
  /** The actor's email at the time, kept so the log reads well after the account changes; null for the CLI. */
  actorEmail: string | null;
  /** The CLI's actor: its `--actor`, else the operating system's user; null for the dashboard. */
  actorName: string | null;
  /** The client IP as the server saw it; null for the CLI. */
  ip: string | null;
  /** What was acted on, e.g. the key's id and name, or the new project name. */
  detail: string;
  /** Why, when the actor said (a suspension, a resumption); null otherwise. */
  reason: string | null;
  createdAt: number;
}

/** A passkey: a WebAuthn credential registered to an account, as a second factor. */
export interface PasskeyRecord {
  /** The credential id, base64url, unique across accounts. */
  credentialId: string;
  accountId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The authenticator's signature counter at its last use (0 for authenticators without one). */
  counter: number;
  /** How the browser reaches the authenticator (`internal`, `usb`, `hybrid`…), as it said. */
  transports: string[];
  /** The name its owner gave it. */
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** A sign-in whose password (or code) matched, waiting for its second factor. */
export interface PendingSignInRecord {
  accountId: string;
  /** The dashboard page the sign-in leads to. */
  next: string;
  createdAt: number;
  expiresAt: number;
}
