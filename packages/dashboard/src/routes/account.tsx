/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { deleteCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type DashboardContext, type DashboardEnv, type Deps, signedInOf } from '../context.js';
import { passwordWeakness } from '../domain/password-strength.js';
import { createSelfService } from '../domain/self-service.js';
import { sessionCookieName } from '../domain/sessions.js';
import type { ThrottleKind } from '../domain/throttle.js';
import {
  accountDeleteBodySchema,
  emailChangeBodySchema,
  emailChangeConfirmBodySchema,
  parseForm,
  passwordChangeBodySchema,
} from '../forms.js';
import { render, seeOther } from '../render.js';
import type { SessionStore } from '../store.js';
import {
  AccountDeletedPage,
  AccountPage,
  DeleteAccountPage,
  EmailConfirmPage,
  EmailPage,
  PasswordPage,
  SessionsPage,
} from '../views/account-pages.js';
import type { FormState } from '../views/auth-pages.js';
import { throttled as throttledPage } from './throttled.js';

/** The answer to a wrong current password, on every form that asks for it. */
export const WRONG_PASSWORD = 'That is not your current password.';

const NOTICES: Record<string, string> = {
  password: 'Your password is changed. Your other sessions are signed out; this one stays.',
  email: 'Your email address is changed. Sign in with the new one from now on.',
  revoked: 'That session is signed out.',
  others: 'Every other session is signed out.',
};

function noticeOf(query: Record<string, string>): FormState {
  for (const [name, text] of Object.entries(NOTICES)) if (query[name] === '1') return { notice: text };
  return {};
}

/**
 * The signed-in account's own pages: change the password, list and end sessions, change the
 * email address by a mailed code, delete the account. Each change that a stolen session could
 * abuse asks for the current password, counted as a sign-in attempt.
 */
export function registerAccountRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options, tidings } = deps;
  const store: SessionStore = options.store;
  const base = options.basePath;
  const selfService = createSelfService({ ...options, admin: tidings.admin });

  /** Counts an attempt; a refusal is the 429 page with Retry-After. */
  const throttled = (c: DashboardContext, kind: ThrottleKind, email: string | null) =>
    throttledPage(c, options, kind, email);

  app.get('/account', async (c) => {
    const { account } = signedInOf(c);
    const sessions = await store.listAccountSessions({ accountId: account.account.id, now: options.clock.now() });
    const fresh = await tidings.admin.getAccount(account.account.id);
    return render(
      c,
      <AccountPage
        email={fresh.email}
        verified={fresh.verified}
        sessions={sessions.length}
        state={noticeOf(c.req.query())}
      />,
    );
  });

  app.get('/account/password', (c) => render(c, <PasswordPage state={{}} />));
  app.post('/account/password', async (c) => {
    const { account, sessionHash } = signedInOf(c);
    const email = account.account.email;
    const form = parseForm(passwordChangeBodySchema, await c.req.parseBody());
    if (!form.ok) return render(c, <PasswordPage state={form} />, 400);
    const weakness = passwordWeakness(form.data.password, [email]);
    if (weakness) return render(c, <PasswordPage state={{ errors: { password: weakness } }} />, 400);
    const limited = await throttled(c, 'sign-in', email);
    if (limited) return limited;
    if (!(await selfService.checkPassword(account, form.data.current_password))) {
      return render(c, <PasswordPage state={{ errors: { current_password: WRONG_PASSWORD } }} />, 401);
    }
    await selfService.changePassword(account, sessionHash, form.data.password);
    return seeOther(c, `${base}/account?password=1`);
  });

  async function sessionsPage(c: DashboardContext, state: FormState, status: ContentfulStatusCode = 200) {
    const { account, sessionHash } = signedInOf(c);
    const sessions = await store.listAccountSessions({ accountId: account.account.id, now: options.clock.now() });
    return render(c, <SessionsPage sessions={sessions} currentRef={sessionHash.slice(0, 16)} state={state} />, status);
  }

  app.get('/account/sessions', (c) => sessionsPage(c, noticeOf(c.req.query())));
  app.post('/account/sessions/revoke-others', async (c) => {
    const { account, sessionHash } = signedInOf(c);
    await store.deleteOtherSessions({ accountId: account.account.id, keepHash: sessionHash });
    return seeOther(c, `${base}/account/sessions?others=1`);
  });
  app.post('/account/sessions/:ref/revoke', async (c) => {
    const { account, sessionHash } = signedInOf(c);
    const ref = c.req.param('ref');
    if (!/^[0-9a-f]{16}$/.test(ref) || !(await store.deleteAccountSession({ accountId: account.account.id, ref }))) {
      return sessionsPage(
        c,
        { message: 'No such session: it may have ended already. The list below shows the sessions still open.' },
        404,
      );
    }
    if (ref === sessionHash.slice(0, 16)) {
      deleteCookie(c, sessionCookieName(options.secureCookie), { path: '/', secure: options.secureCookie });
      return seeOther(c, `${base}/login`);
    }
    return seeOther(c, `${base}/account/sessions?revoked=1`);
  });

  app.get('/account/email', (c) => render(c, <EmailPage email={signedInOf(c).account.account.email} state={{}} />));
  app.post('/account/email', async (c) => {
    const { account } = signedInOf(c);
    const email = account.account.email;
    const form = parseForm(emailChangeBodySchema, await c.req.parseBody());
    if (!form.ok) return render(c, <EmailPage email={email} state={form} />, 400);
    if (form.data.email === email) {
      const state = { values: form.values, errors: { email: 'This is already your address.' } };
      return render(c, <EmailPage email={email} state={state} />, 400);
    }
    const limited = (await throttled(c, 'sign-in', email)) ?? (await throttled(c, 'send-code', form.data.email));
    if (limited) return limited;
    if (!(await selfService.checkPassword(account, form.data.current_password))) {
      const state = { values: form.values, errors: { current_password: WRONG_PASSWORD } };
      return render(c, <EmailPage email={email} state={state} />, 401);
    }
    // A taken address gets the same answer as a free one (and its owner a notice), as in sign-up.
    await selfService.requestEmailChange(account, form.data.email);
    return seeOther(c, `${base}/account/email/confirm?email=${encodeURIComponent(form.data.email)}`);
  });
  app.get('/account/email/confirm', (c) =>
    render(c, <EmailConfirmPage newEmail={c.req.query('email') ?? ''} state={{}} />),
  );
  app.post('/account/email/confirm', async (c) => {
    const { account } = signedInOf(c);
    const form = parseForm(emailChangeConfirmBodySchema, await c.req.parseBody());
    if (!form.ok) return render(c, <EmailConfirmPage newEmail={form.values.email ?? ''} state={form} />, 400);
    const limited = await throttled(c, 'code', form.data.email);
    if (limited) return limited;
    const result = await selfService.confirmEmailChange(account, form.data.email, form.data.code);
    if (result.kind === 'valid') return seeOther(c, `${base}/account?email=1`);
    const message =
      result.kind === 'invalid'
        ? `That code is not right. ${result.attemptsLeft} ${result.attemptsLeft === 1 ? 'try' : 'tries'} left.`
        : result.kind === 'email-taken'
          ? 'This address has just been taken by another account. Choose another.'
          : 'This code is not valid for this address, or it has expired.';
    return render(
      c,
      <EmailConfirmPage newEmail={form.data.email} state={{ errors: { code: message } }} />,
      result.kind === 'email-taken' ? 409 : 400,
    );
  });

  async function deletePage(c: DashboardContext, state: FormState, status: ContentfulStatusCode = 200) {
    const { account } = signedInOf(c);
    const projects = await tidings.admin.listProjects(account.account.id);
    return render(
      c,
      <DeleteAccountPage email={account.account.email} projects={projects.length} state={state} />,
      status,
    );
  }
  app.get('/account/delete', (c) => deletePage(c, {}));
  app.post('/account/delete', async (c) => {
    const { account } = signedInOf(c);
    const email = account.account.email;
    const form = parseForm(accountDeleteBodySchema, await c.req.parseBody());
    if (!form.ok) return deletePage(c, form, 400);
    if (form.data.confirm_email !== email) {
      const state = {
        values: form.values,
        errors: { confirm_email: 'This is not your email address: nothing was deleted.' },
      };
      return deletePage(c, state, 400);
    }
    const limited = await throttled(c, 'sign-in', email);
    if (limited) return limited;
    if (!(await selfService.checkPassword(account, form.data.current_password))) {
      const state = { values: form.values, errors: { current_password: `${WRONG_PASSWORD} Nothing was deleted.` } };
      return deletePage(c, state, 401);
    }
    await selfService.deleteAccount(account);
    deleteCookie(c, sessionCookieName(options.secureCookie), { path: '/', secure: options.secureCookie });
    return seeOther(c, `${base}/account/deleted`);
  });
  app.get('/account/deleted', (c) => render(c, <AccountDeletedPage />));
}
