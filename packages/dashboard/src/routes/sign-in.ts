import { setCookie } from 'hono/cookie';
import { clientIp, type DashboardContext, type Deps } from '../context.js';
import { newPendingToken, PENDING_SIGN_IN_TTL_MS, pendingCookieName } from '../domain/second-factor.js';
import { sessionCookieName } from '../domain/sessions.js';
import { seeOther } from '../render.js';

/** Starts a session for the account (ending the request's earlier one) and leads to `to`. */
export async function startSession(c: DashboardContext, deps: Deps, accountId: string, to: string): Promise<Response> {
  const { options, sessions } = deps;
  const previous = c.get('signedIn');
  if (previous) await sessions.end(previous.sessionHash);
  const id = await sessions.start(accountId, options.clock.now(), {
    userAgent: c.req.header('user-agent') ?? null,
    ip: clientIp(c, options),
  });
  setCookie(c, sessionCookieName(options.secureCookie), id, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: options.secureCookie,
    maxAge: Math.floor(options.sessionAbsoluteMs / 1000),
  });
  return seeOther(c, to);
}

/**
 * What a matching password or code leads to: a session, or, for an account with a passkey, a
 * pending sign-in (a random token in an HttpOnly cookie, its hash in the store, 10 minutes, one
 * use) and the second-factor page. No session exists until the second factor matches.
 */
export async function signIn(c: DashboardContext, deps: Deps, accountId: string, to: string): Promise<Response> {
  const { options } = deps;
  const passkeys = await options.store.listPasskeys(accountId);
  if (passkeys.length === 0) return startSession(c, deps, accountId, to);
  const now = options.clock.now();
  const { token, hash } = newPendingToken();
  await options.store.createPendingSignIn({
    hash,
    accountId,
    next: to,
    createdAt: now,
    expiresAt: now + PENDING_SIGN_IN_TTL_MS,
  });
  setCookie(c, pendingCookieName(options.secureCookie), token, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: options.secureCookie,
    maxAge: Math.floor(PENDING_SIGN_IN_TTL_MS / 1000),
  });
  return seeOther(c, `${options.basePath}/login/second-factor`);
}
