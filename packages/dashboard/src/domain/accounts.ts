import { type AdminApi, type Clock, type Mailer, newId } from '@tidings/core';
import type {
  ConsumeEmailCodeResult,
  DashboardAccount,
  DashboardAccountStore,
  EmailCodePurpose,
  EmailCodeStore,
  InvitationRecord,
  SessionStore,
} from '../store.js';
import { generateCode, hashCode } from './codes.js';
import { decoyPasswordHash, hashPassword, verifyPassword } from './passwords.js';

/** A code is good for 15 minutes and 5 tries; an invitation for 7 days. */
export const CODE_TTL_MS = 15 * 60_000;
export const INVITATION_TTL_MS = 7 * 86_400_000;
export const CODE_MAX_ATTEMPTS = 5;

const SUBJECTS: Record<EmailCodePurpose, string> = {
  verify: 'Your Tidings verification code',
  reset: 'Your Tidings password reset code',
  invite: 'You are invited to Tidings',
  'sign-in': 'Your Tidings sign-in code',
};

/** Outcome of {@link AccountService.signUp}. */
export type SignUpResult =
  | { kind: 'created'; account: DashboardAccount }
  | { kind: 'email-taken' }
  | { kind: 'invitation-invalid' };

/** Options of {@link createAccountService}. */
export interface AccountServiceOptions {
  /** The dashboard's port: the roles of accounts and passwords, codes, and sessions. */
  store: DashboardAccountStore & EmailCodeStore & SessionStore;
  /** Marks an address verified once its code matched: the core's own record of the account. */
  admin: Pick<AdminApi, 'verifyAccount'>;
  mailer: Mailer;
  clock: Clock;
}

/**
 * The account rules of the dashboard, apart from HTTP: sign-up, sign-in, codes for
 * verification, password reset, invitations and sign-in. Outcomes are values.
 */
export function createAccountService(options: AccountServiceOptions) {
  const { store, admin, mailer, clock } = options;

  async function issueCode(
    email: string,
    purpose: EmailCodePurpose,
    ttlMs: number,
    issuedBy: string | null = null,
  ): Promise<string> {
    const code = generateCode();
    const now = clock.now();
    await store.putEmailCode({
      email,
      purpose,
      codeHash: hashCode(purpose, email, code),
      now,
      expiresAt: now + ttlMs,
      issuedBy,
    });
    return code;
  }

  function checkCode(email: string, purpose: EmailCodePurpose, code: string): Promise<ConsumeEmailCodeResult> {
    return store.consumeEmailCode({
      email,
      purpose,
      codeHash: hashCode(purpose, email, code),
      now: clock.now(),
      maxAttempts: CODE_MAX_ATTEMPTS,
    });
  }

  async function mailCode(
    email: string,
    purpose: EmailCodePurpose,
    lines: string[],
    ttlMs = CODE_TTL_MS,
    issuedBy: string | null = null,
  ) {
    const code = await issueCode(email, purpose, ttlMs, issuedBy);
    const text = [
      ...lines.map((line) => line.replace('{code}', code)),
      '',
      'If you did not ask for this, ignore this message.',
    ];
    await mailer.send({ to: email, subject: SUBJECTS[purpose], text: text.join('\n'), code });
  }

  function sendVerification(email: string): Promise<void> {
    return mailCode(email, 'verify', [
      'Your code to verify this address on Tidings: {code}',
      'It is good for 15 minutes.',
    ]);
  }

  return {
    /** Creates an account; with `invitationCode` (invitation-only sign-up) it must match and verifies the email. */
    async signUp(input: { email: string; password: string; invitationCode: string | null }): Promise<SignUpResult> {
      let verified = false;
      if (input.invitationCode !== null) {
        const checked = await checkCode(input.email, 'invite', input.invitationCode);
        if (checked.kind !== 'valid') return { kind: 'invitation-invalid' };
        verified = true;
      }
      const result = await store.createAccountWithPassword({
        id: newId('acct', clock.now()),
        email: input.email,
        passwordHash: await hashPassword(input.password),
        verified,
        operator: false,
        now: clock.now(),
      });
      return result;
    },
    /** The account when email and password match; null otherwise, after the same work either way. */
    async signIn(email: string, password: string): Promise<DashboardAccount | null> {
      const found = await store.findAccountByEmail(email);
      const hash = found?.passwordHash ?? (await decoyPasswordHash());
      const matches = await verifyPassword(password, hash);
      return found?.passwordHash && matches ? found : null;
    },
    /** Mails a verification code to the account's address. */
    sendVerification,
    /**
     * Tells the owner of an address that someone tried to sign up with it. Sign-up answers the
     * same whether the address is taken or not; this mail is what the owner sees instead.
     */
    warnOfSignUp(email: string, signInUrl: string): Promise<void> {
      return mailer.send({
        to: email,
        subject: 'Someone tried to create a Tidings account with your address',
        text: [
          'Someone, maybe you, tried to create a Tidings account with this address, which already has one.',
          `If it was you, sign in instead: ${signInUrl} (or reset your password there).`,
          '',
          'If it was not you, ignore this message: nothing has changed.',
        ].join('\n'),
      });
    },
    /** Mails a new verification code, if an account with this address still needs one; nothing otherwise. */
    async resendVerification(email: string): Promise<void> {
      const found = await store.findAccountByEmail(email);
      if (found && !found.account.verified) await sendVerification(email);
    },
    /** The account of an address whose verification code matches, now verified; null otherwise. */
    async verifyEmail(
      email: string,
      code: string,
    ): Promise<{ account: DashboardAccount | null; result: ConsumeEmailCodeResult }> {
      const result = await checkCode(email, 'verify', code);
      const found = result.kind === 'valid' ? await store.findAccountByEmail(email) : null;
      if (!found) return { account: null, result };
      if (!found.account.verified) await admin.verifyAccount(found.account.id);
      return { account: found, result };
    },
    /** Checks a verification code, and marks the account verified when it matches. */
    async verify(account: DashboardAccount, code: string): Promise<ConsumeEmailCodeResult> {
      const result = await checkCode(account.account.email, 'verify', code);
      if (result.kind === 'valid') await admin.verifyAccount(account.account.id);
      return result;
    },
    /** Mails a reset code if an account has this email; says nothing either way. */
    async requestReset(email: string): Promise<void> {
      if (!(await store.findAccountByEmail(email))) return;
      await mailCode(email, 'reset', [
        'Your code to choose a new Tidings password: {code}',
        'It is good for 15 minutes.',
      ]);
    },
    /** Sets a new password when the reset code matches, and ends every session of the account. */
    async reset(email: string, code: string, password: string): Promise<ConsumeEmailCodeResult> {
      const found = await store.findAccountByEmail(email);
      if (!found) return { kind: 'missing' };
      const result = await checkCode(email, 'reset', code);
      if (result.kind !== 'valid') return result;
      await store.setAccountPassword({ id: found.account.id, passwordHash: await hashPassword(password) });
      await store.deleteAccountSessions(found.account.id);
      // The code arrived at the address: that proves it as well as a verification code would.
      if (!found.account.verified) await admin.verifyAccount(found.account.id);
      return result;
    },
    /** Mails an invitation code to an address (invitation-only sign-up); `invitedBy` is the operator's email. */
    invite(email: string, signUpUrl: string, invitedBy: string | null = null): Promise<void> {
      return mailCode(
        email,
        'invite',
        [
          `You are invited to create an account on Tidings: ${signUpUrl}`,
          'Your invitation code: {code}',
          'It is good for 7 days.',
        ],
        INVITATION_TTL_MS,
        invitedBy,
      );
    },
    /** The invitations whose code still works, newest first (at most `limit`). */
    pendingInvitations(limit = 200): Promise<InvitationRecord[]> {
      return store.listInvitations({ now: clock.now(), maxAttempts: CODE_MAX_ATTEMPTS, limit });
    },
    /** The invitation of an address, if its code still works. */
    async pendingInvitation(email: string): Promise<InvitationRecord | null> {
      const [found] = await store.listInvitations({
        now: clock.now(),
        maxAttempts: CODE_MAX_ATTEMPTS,
        limit: 1,
        email,
      });
      return found ?? null;
    },
    /** Voids the invitation of an address at once; false when it had none that still works. */
    revokeInvitation(email: string): Promise<boolean> {
      return store.revokeInvitation({ email, now: clock.now(), maxAttempts: CODE_MAX_ATTEMPTS });
    },
    /**
     * Mails a one-time sign-in code (15 minutes) to the address when a verified account has it;
     * does nothing otherwise, so that the answer tells nobody which addresses have accounts.
     */
    async mailSignInCode(email: string): Promise<void> {
      const found = await store.findAccountByEmail(email);
      if (!found?.account.verified) return;
      await mailCode(email, 'sign-in', ['Your code to sign in to Tidings: {code}', 'It is good for 15 minutes.']);
    },
    /** Issues a one-time sign-in code (for the operator CLI and the demo), returned rather than mailed. */
    issueSignInCode(email: string, ttlMs: number): Promise<string> {
      return issueCode(email, 'sign-in', ttlMs);
    },
    /** The account of a valid sign-in code. */
    async signInWithCode(
      email: string,
      code: string,
    ): Promise<{ account: DashboardAccount | null; result: ConsumeEmailCodeResult }> {
      const result = await checkCode(email, 'sign-in', code);
      if (result.kind !== 'valid') return { account: null, result };
      return { account: await store.findAccountByEmail(email), result };
    },
  };
}

/** The account rules built by {@link createAccountService}. */
export type AccountService = ReturnType<typeof createAccountService>;
