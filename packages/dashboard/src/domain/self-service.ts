import type { AdminApi, Clock, Mailer } from '@tidings/core';
import type {
  ConsumeEmailCodeResult,
  DashboardAccount,
  DashboardAccountStore,
  DashboardMaintenanceStore,
  EmailCodeStore,
  SessionStore,
} from '../store.js';
import { CODE_MAX_ATTEMPTS, CODE_TTL_MS } from './accounts.js';
import { generateCode, hashCode } from './codes.js';
import { decoyPasswordHash, hashPassword, verifyPassword } from './passwords.js';

/** Options of {@link createSelfService}. */
export interface SelfServiceOptions {
  /** The dashboard's port: the roles a person's own account changes. */
  store: DashboardAccountStore & SessionStore & EmailCodeStore & DashboardMaintenanceStore;
  admin: Pick<AdminApi, 'verifyAccount' | 'deleteAccount'>;
  mailer: Mailer;
  clock: Clock;
}

/**
 * A code that moves an account to a new address is a verification code of that address, bound
 * to the account that asked for it: the same six digits entered by another account, or for
 * another address, never match.
 */
function emailChangeCodeHash(accountId: string, newEmail: string, code: string): string {
  return hashCode('verify', newEmail, `${code}\n${accountId}`);
}

/** Outcome of {@link SelfService.confirmEmailChange}. */
export type ConfirmEmailChangeResult = ConsumeEmailCodeResult | { kind: 'email-taken' };

/**
 * What a signed-in person does to their own account, apart from HTTP: check the password before
 * a sensitive change, change it, move the account to another address, delete the account.
 */
export function createSelfService(options: SelfServiceOptions) {
  const { store, admin, mailer, clock } = options;

  return {
    /** True when `password` is the account's; as slow for an account without a password. */
    async checkPassword(account: DashboardAccount, password: string): Promise<boolean> {
      const hash = account.passwordHash ?? (await decoyPasswordHash());
      const matches = await verifyPassword(password, hash);
      return account.passwordHash !== null && matches;
    },

    /** Sets a new password and ends every other session of the account; this one stays. */
    async changePassword(account: DashboardAccount, sessionHash: string, password: string): Promise<void> {
      await store.setAccountPassword({ id: account.account.id, passwordHash: await hashPassword(password) });
      await store.deleteOtherSessions({ accountId: account.account.id, keepHash: sessionHash });
    },

    /**
     * Mails a code to `newEmail` that moves the account there. An address another account has
     * gets no code but a notice to its owner, and the caller answers as for a free address: the
     * page tells nobody whether an address has an account, as sign-up does.
     */
    async requestEmailChange(account: DashboardAccount, newEmail: string): Promise<void> {
      const holder = await store.findAccountByEmail(newEmail);
      if (holder) {
        if (holder.account.id === account.account.id) return;
        await mailer.send({
          to: newEmail,
          subject: 'Someone tried to move a Tidings account to your address',
          text: [
            'Someone asked to move another Tidings account to this address, which already has an account.',
            'Nothing has changed, and no account was moved. If it was not you, ignore this message.',
          ].join('\n'),
        });
        return;
      }
      const code = generateCode();
      const now = clock.now();
      await store.putEmailCode({
        email: newEmail,
        purpose: 'verify',
        codeHash: emailChangeCodeHash(account.account.id, newEmail, code),
        now,
        expiresAt: now + CODE_TTL_MS,
      });
      await mailer.send({
        to: newEmail,
        subject: 'Your code to change your Tidings email address',
        text: [
          `Your code to make this the address of your Tidings account: ${code}`,
          'It is good for 15 minutes.',
          '',
          'If you did not ask for this, ignore this message.',
        ].join('\n'),
        code,
      });
    },

    /**
     * Checks the code mailed to `newEmail`; when it matches, the account moves there (verified:
     * the code reached it) and the old address gets a notice.
     */
    async confirmEmailChange(
      account: DashboardAccount,
      newEmail: string,
      code: string,
    ): Promise<ConfirmEmailChangeResult> {
      const result = await store.consumeEmailCode({
        email: newEmail,
        purpose: 'verify',
        codeHash: emailChangeCodeHash(account.account.id, newEmail, code),
        now: clock.now(),
        maxAttempts: CODE_MAX_ATTEMPTS,
      });
      if (result.kind !== 'valid') return result;
      const changed = await store.setAccountEmail({ id: account.account.id, email: newEmail });
      if (changed === 'email-taken') return { kind: 'email-taken' };
      if (changed === 'not-found') return { kind: 'missing' };
      if (!account.account.verified) await admin.verifyAccount(account.account.id);
      await mailer.send({
        to: account.account.email,
        subject: 'The email address of your Tidings account changed',
        text: [
          `Your Tidings account now signs in with ${newEmail} instead of this address.`,
          'If you did not do this, reset your password with the new address, or ask the operator of your Tidings server.',
        ].join('\n'),
      });
      return result;
    },

    /**
     * Deletes the account: first what the dashboard keeps of it (its sessions, codes and audit
     * log), then, through the admin API, its projects with all they hold and the account itself.
     */
    async deleteAccount(account: DashboardAccount): Promise<void> {
      const data = { accountId: account.account.id, email: account.account.email };
      await store.deleteAccountDashboardData(data);
      try {
        await admin.deleteAccount(account.account.id);
      } catch (error) {
        // A sign-in between the two steps leaves a session that holds the account: end it too, once.
        await store.deleteAccountDashboardData(data);
        await admin.deleteAccount(account.account.id).catch(() => {
          throw error;
        });
      }
    },
  };
}

/** The self-service rules built by {@link createSelfService}. */
export type SelfService = ReturnType<typeof createSelfService>;
