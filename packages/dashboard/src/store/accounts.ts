import type { AccountRecord } from '@tidings/core';

/** An account with what signing in to the dashboard needs. */
export interface DashboardAccount {
  account: AccountRecord;
  /** An scrypt hash (`scrypt$N$r$p$salt$hash`); null for an account that never set a password. */
  passwordHash: string | null;
  /** Operators see every account and project, and may suspend projects. */
  operator: boolean;
}

/** Outcome of {@link DashboardAccountStore.createAccountWithPassword}. */
export type CreateAccountWithPasswordResult = { kind: 'created'; account: DashboardAccount } | { kind: 'email-taken' };

/**
 * Accounts as the dashboard sees them, on the core's own accounts: found by email, with a
 * password and an operator flag, searched by operators. Emails are compared as given: callers
 * pass them trimmed and lower-cased.
 */
export interface DashboardAccountStore {
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
   * Changes an account's email, unless another account has it (checked and written in one
   * transaction, as {@link DashboardAccountStore.createAccountWithPassword} does).
   */
  setAccountEmail(input: { id: string; email: string }): Promise<'changed' | 'email-taken' | 'not-found'>;
}
