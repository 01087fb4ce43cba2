/** @jsxImportSource hono/jsx */
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Hono } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { type DashboardContext, type DashboardEnv, type Deps, signedInOf } from '../context.js';
import { MAX_PASSWORD_LENGTH, verifyPassword } from '../domain/passwords.js';
import {
  CHALLENGE_TTL_MS,
  challengeKey,
  generateRecoveryCode,
  hashRecoveryCode,
  pendingCookieName,
  pendingTokenHash,
  RECOVERY_CODE_COUNT,
  relyingParty,
} from '../domain/second-factor.js';
import type { SignedIn } from '../domain/sessions.js';
import type { ThrottleKind } from '../domain/throttle.js';
import { parseForm } from '../forms.js';
import { MAX_PASSKEY_NAME_LENGTH, tooLong } from '../limits.js';
import { render, seeOther } from '../render.js';
import type {
  DashboardAccount,
  DashboardAccountStore,
  PendingSignInRecord,
  PendingSignInStore,
  SecondFactorStore,
} from '../store.js';
import type { FormState } from '../views/auth-pages.js';
import { SecondFactorPage, SecurityPage } from '../views/security-pages.js';
import { startSession } from './sign-in.js';
import { throttled as throttledPage } from './throttled.js';

/** The paths of the second step of sign-in: open before a session exists. */
export const SECOND_FACTOR_PATHS = [
  '/login/second-factor',
  '/login/second-factor/passkey',
  '/login/second-factor/recovery',
];

const password = z.string({ error: 'Enter your password' }).min(1, 'Enter your password').max(MAX_PASSWORD_LENGTH);
/** The browser's answer, as the page's script puts it in the form; empty when JavaScript is off. */
const webauthnResponse = z
  .string()
  .max(64 * 1024, 'The passkey answer is too long')
  .optional();
const addPasskeySchema = z.object({
  name: z
    .string({ error: 'Name the passkey, e.g. “work laptop”' })
    .trim()
    .min(1, 'Name the passkey, e.g. “work laptop”')
    .max(MAX_PASSKEY_NAME_LENGTH, tooLong(MAX_PASSKEY_NAME_LENGTH)),
  response: webauthnResponse,
});
const removePasskeySchema = z.object({
  credential: z.string({ error: 'Choose a passkey' }).min(1, 'Choose a passkey').max(1024),
  password,
});
const passwordSchema = z.object({ password });
const passkeySignInSchema = z.object({ response: webauthnResponse });
const recoverySchema = z.object({
  code: z
    .string({ error: 'Enter a recovery code' })
    .trim()
    .min(1, 'Enter a recovery code')
    .max(40, 'That is not a recovery code'),
});

const NEEDS_JAVASCRIPT = 'Using a passkey needs JavaScript, which is off in this browser.';

function fromBase64url(value: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(value, 'base64url'));
}

/** Parses the browser's JSON answer; null when it is not an object with an id. */
function parseWebAuthnResponse<T extends { id: string }>(text: string): T | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string'
      ? (value as T)
      : null;
  } catch {
    return null;
  }
}

/**
 * Passkeys and recovery codes: the account's security page, and the second step of sign-in.
 * Challenges are made on the server when a page shows a passkey form, kept 5 minutes, and taken
 * (deleted) by the first answer, right or wrong.
 */
export function registerSecurityRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options } = deps;
  const store: SecondFactorStore & PendingSignInStore & Pick<DashboardAccountStore, 'getDashboardAccount'> =
    options.store;
  const base = options.basePath;

  /** Counts an attempt; a refusal is the 429 page with Retry-After. */
  const throttled = (c: DashboardContext, kind: ThrottleKind, email: string | null) =>
    throttledPage(c, options, kind, email);

  async function newRecoveryCodes(accountId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
    await store.replaceRecoveryCodes({
      accountId,
      hashes: codes.map((code) => hashRecoveryCode(accountId, code)),
      now: options.clock.now(),
    });
    return codes;
  }

  async function securityPage(
    c: DashboardContext,
    signedIn: SignedIn,
    state: FormState,
    status: ContentfulStatusCode = 200,
    newCodes?: string[],
  ) {
    const { account } = signedIn.account;
    const passkeys = await store.listPasskeys(account.id);
    const registration = await generateRegistrationOptions({
      rpName: 'Tidings',
      rpID: relyingParty(options.publicUrl, c.req.url).rpID,
      userName: account.email,
      userID: new TextEncoder().encode(account.id),
      attestationType: 'none',
      excludeCredentials: passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      timeout: CHALLENGE_TTL_MS,
    });
    await store.putWebAuthnChallenge({
      key: challengeKey('register', signedIn.sessionHash),
      challenge: registration.challenge,
      expiresAt: options.clock.now() + CHALLENGE_TTL_MS,
    });
    const page = (
      <SecurityPage
        passkeys={passkeys}
        recoveryCodesLeft={await store.countRecoveryCodes(account.id)}
        registrationOptions={JSON.stringify(registration)}
        state={state}
        newCodes={newCodes}
      />
    );
    return render(c, page, status);
  }

  /** True when the password is the account's; an account without one cannot pass. */
  async function passwordMatches(account: DashboardAccount, given: string): Promise<boolean> {
    return account.passwordHash !== null && (await verifyPassword(given, account.passwordHash));
  }

  app.get('/account/security', (c) => {
    const notices: Record<string, string> = {
      added: 'The passkey is added: signing in now asks for it after your password.',
      removed: 'The passkey is removed.',
    };
    const notice = notices[c.req.query('done') ?? ''];
    return securityPage(c, signedInOf(c), notice ? { notice } : {});
  });

  app.post('/account/security/passkeys', async (c) => {
    const signedIn = signedInOf(c);
    const { account } = signedIn.account;
    const form = parseForm(addPasskeySchema, await c.req.parseBody());
    if (!form.ok) return securityPage(c, signedIn, form, 400);
    const state = { values: form.values };
    if (!form.data.response) return securityPage(c, signedIn, { ...state, message: NEEDS_JAVASCRIPT }, 400);
    const now = options.clock.now();
    const challenge = await store.takeWebAuthnChallenge({ key: challengeKey('register', signedIn.sessionHash), now });
    if (!challenge) {
      const message = 'This request to add a passkey has expired or was used. Try again.';
      return securityPage(c, signedIn, { ...state, message }, 400);
    }
    const response = parseWebAuthnResponse<RegistrationResponseJSON>(form.data.response);
    const { origin, rpID } = relyingParty(options.publicUrl, c.req.url);
    const verification = response
      ? await verifyRegistrationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: false,
        }).catch(() => null)
      : null;
    if (!verification?.verified) {
      const message = 'The passkey could not be checked, so it was not added. Try again.';
      return securityPage(c, signedIn, { ...state, message }, 400);
    }
    const { credential } = verification.registrationInfo;
    if (await store.findPasskey(credential.id)) {
      return securityPage(c, signedIn, { ...state, message: 'This passkey is added already.' }, 409);
    }
    const first = (await store.listPasskeys(account.id)).length === 0;
    await store.addPasskey({
      credentialId: credential.id,
      accountId: account.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name: form.data.name,
      createdAt: now,
      lastUsedAt: null,
    });
    if (!first) return seeOther(c, `${base}/account/security?done=added`);
    const codes = await newRecoveryCodes(account.id);
    const notice = 'The passkey is added: signing in now asks for it after your password.';
    return securityPage(c, signedIn, { notice }, 200, codes);
  });

  app.post('/account/security/passkeys/remove', async (c) => {
    const signedIn = signedInOf(c);
    const { account } = signedIn.account;
    const form = parseForm(removePasskeySchema, await c.req.parseBody());
    if (!form.ok) {
      return securityPage(c, signedIn, { errors: { removePassword: Object.values(form.errors)[0] ?? '' } }, 400);
    }
    const limited = await throttled(c, 'sign-in', account.email);
    if (limited) return limited;
    if (!(await passwordMatches(signedIn.account, form.data.password))) {
      return securityPage(c, signedIn, { errors: { removePassword: 'That password is not right.' } }, 401);
    }
    const removed = await store.deletePasskey({ accountId: account.id, credentialId: form.data.credential });
    if (!removed) return securityPage(c, signedIn, { message: 'No such passkey: it may be removed already.' }, 404);
    // Without a passkey there is no second step, and no use for recovery codes.
    if ((await store.listPasskeys(account.id)).length === 0) {
      await store.replaceRecoveryCodes({ accountId: account.id, hashes: [], now: options.clock.now() });
    }
    return seeOther(c, `${base}/account/security?done=removed`);
  });

  app.post('/account/security/recovery-codes', async (c) => {
    const signedIn = signedInOf(c);
    const { account } = signedIn.account;
    const form = parseForm(passwordSchema, await c.req.parseBody());
    if (!form.ok) return securityPage(c, signedIn, { errors: { codesPassword: form.errors.password ?? '' } }, 400);
    const limited = await throttled(c, 'sign-in', account.email);
    if (limited) return limited;
    if (!(await passwordMatches(signedIn.account, form.data.password))) {
      return securityPage(c, signedIn, { errors: { codesPassword: 'That password is not right.' } }, 401);
    }
    if ((await store.listPasskeys(account.id)).length === 0) {
      return securityPage(c, signedIn, { message: 'Recovery codes come with a passkey: add one first.' }, 409);
    }
    const codes = await newRecoveryCodes(account.id);
    return securityPage(
      c,
      signedIn,
      { notice: 'New recovery codes are made: the earlier ones no longer work.' },
      200,
      codes,
    );
  });

  // The second step of sign-in. Without a live pending sign-in, every one of these leads back to
  // the first step.

  async function pendingOf(c: DashboardContext): Promise<{ hash: string; pending: PendingSignInRecord } | null> {
    const hash = pendingTokenHash(getCookie(c, pendingCookieName(options.secureCookie)));
    if (!hash) return null;
    const pending = await store.findPendingSignIn({ hash, now: options.clock.now() });
    return pending ? { hash, pending } : null;
  }

  async function secondFactorPage(
    c: DashboardContext,
    found: { hash: string; pending: PendingSignInRecord },
    state: FormState,
    status: ContentfulStatusCode = 200,
  ) {
    const passkeys = await store.listPasskeys(found.pending.accountId);
    const authentication = await generateAuthenticationOptions({
      rpID: relyingParty(options.publicUrl, c.req.url).rpID,
      allowCredentials: passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })),
      userVerification: 'preferred',
      timeout: CHALLENGE_TTL_MS,
    });
    await store.putWebAuthnChallenge({
      key: challengeKey('sign-in', found.hash),
      challenge: authentication.challenge,
      expiresAt: options.clock.now() + CHALLENGE_TTL_MS,
    });
    return render(c, <SecondFactorPage state={state} authenticationOptions={JSON.stringify(authentication)} />, status);
  }

  function startAgain(c: DashboardContext): Response {
    deleteCookie(c, pendingCookieName(options.secureCookie), { path: '/', secure: options.secureCookie });
    return seeOther(c, `${base}/login`);
  }

  /** Ends the pending sign-in (one use) and starts the session. */
  async function finish(c: DashboardContext, hash: string): Promise<Response> {
    const taken = await store.takePendingSignIn({ hash, now: options.clock.now() });
    deleteCookie(c, pendingCookieName(options.secureCookie), { path: '/', secure: options.secureCookie });
    if (!taken) return seeOther(c, `${base}/login`);
    return startSession(c, deps, taken.accountId, taken.next);
  }

  async function emailOf(accountId: string): Promise<string> {
    return (await store.getDashboardAccount(accountId))?.account.email ?? accountId;
  }

  app.get('/login/second-factor', async (c) => {
    const found = await pendingOf(c);
    if (!found) return startAgain(c);
    return secondFactorPage(c, found, {});
  });

  app.post('/login/second-factor/passkey', async (c) => {
    const found = await pendingOf(c);
    if (!found) return startAgain(c);
    const limited = await throttled(c, 'second-factor', await emailOf(found.pending.accountId));
    if (limited) return limited;
    const form = parseForm(passkeySignInSchema, await c.req.parseBody());
    if (!form.ok) return secondFactorPage(c, found, { message: Object.values(form.errors)[0] ?? '' }, 400);
    if (!form.data.response) {
      return secondFactorPage(c, found, { message: `${NEEDS_JAVASCRIPT} Use a recovery code instead.` }, 400);
    }
    const now = options.clock.now();
    const challenge = await store.takeWebAuthnChallenge({ key: challengeKey('sign-in', found.hash), now });
    if (!challenge) {
      const message = 'This passkey request has expired or was used. Try your passkey again.';
      return secondFactorPage(c, found, { message }, 400);
    }
    const refused = () =>
      secondFactorPage(c, found, { message: 'That passkey could not be checked for this account. Try again.' }, 401);
    const response = parseWebAuthnResponse<AuthenticationResponseJSON>(form.data.response);
    const passkey = response ? await store.findPasskey(response.id) : null;
    if (!response || !passkey || passkey.accountId !== found.pending.accountId) return refused();
    const { origin, rpID } = relyingParty(options.publicUrl, c.req.url);
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: passkey.credentialId,
        publicKey: fromBase64url(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: false,
    }).catch(() => null);
    if (!verification?.verified) return refused();
    await store.usePasskey({
      credentialId: passkey.credentialId,
      counter: verification.authenticationInfo.newCounter,
      now,
    });
    return finish(c, found.hash);
  });

  app.post('/login/second-factor/recovery', async (c) => {
    const found = await pendingOf(c);
    if (!found) return startAgain(c);
    const limited = await throttled(c, 'second-factor', await emailOf(found.pending.accountId));
    if (limited) return limited;
    const form = parseForm(recoverySchema, await c.req.parseBody());
    if (!form.ok) return secondFactorPage(c, found, form, 400);
    const { accountId } = found.pending;
    const used = await store.useRecoveryCode({ accountId, hash: hashRecoveryCode(accountId, form.data.code) });
    if (!used) {
      const state = { errors: { code: 'This recovery code is not right, or it was used already.' } };
      return secondFactorPage(c, found, state, 401);
    }
    return finish(c, found.hash);
  });
}
