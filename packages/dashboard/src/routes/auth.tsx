/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { deleteCookie } from 'hono/cookie';
import type { DashboardContext, DashboardEnv, Deps } from '../context.js';
import { sessionCookieName } from '../domain/sessions.js';
import type { ThrottleKind } from '../domain/throttle.js';
import {
  codeLoginBodySchema,
  codeRequestBodySchema,
  loginBodySchema,
  parseForm,
  resetConfirmBodySchema,
  resetRequestBodySchema,
  signupBodySchema,
  signupResendBodySchema,
  signupVerifyBodySchema,
  verifyBodySchema,
} from '../forms.js';
import { render, seeOther } from '../render.js';
import {
  CodeLoginPage,
  LoginPage,
  ResetConfirmPage,
  ResetRequestPage,
  SignupPage,
  VerifyPage,
} from '../views/auth-pages.js';
import { signIn } from './sign-in.js';
import { throttled as throttledPage } from './throttled.js';

/** One message for a wrong email and a wrong password alike: it tells nobody which accounts exist. */
export const WRONG_CREDENTIALS = 'The email or password is not right.';

/** Sign-up, sign-in (password or one-time code), sign-out, verification and password reset. */
export function registerAuthRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options, accounts, sessions } = deps;
  const base = options.basePath;

  /** A session, or the second step first for an account with a passkey (`./sign-in.ts`). */
  function signInAs(c: DashboardContext, accountId: string, to = base): Promise<Response> {
    return signIn(c, deps, accountId, to);
  }

  /** Counts an attempt; a refusal is the 429 page with Retry-After. */
  const throttled = (c: DashboardContext, kind: ThrottleKind, email: string | null) =>
    throttledPage(c, options, kind, email);

  const signupOpen = options.signup !== 'closed';

  /**
   * Where sign-in leads: the page asked for before it (`next`), when that is a page of the
   * dashboard itself; anything else (another site, `//host`, a backslash) leads home.
   */
  function nextPage(value: unknown): string {
    if (typeof value !== 'string' || !value.startsWith(`${base}/`) || /[\\]|\/\/|[\r\n]/.test(value)) return base;
    return value;
  }

  app.get('/signup', (c) => render(c, <SignupPage state={{}} policy={options.signup} />));
  app.post('/signup', async (c) => {
    if (options.signup === 'closed') return render(c, <SignupPage state={{}} policy="closed" />, 403);
    const form = parseForm(signupBodySchema, await c.req.parseBody());
    if (!form.ok) return render(c, <SignupPage state={form} policy={options.signup} />, 400);
    const limited = await throttled(c, 'sign-up', form.data.email);
    if (limited) return limited;
    if (options.signup === 'invite' && !form.data.code) {
      const state = { values: form.values, errors: { code: 'Enter the invitation code from your invitation mail' } };
      return render(c, <SignupPage state={state} policy="invite" />, 400);
    }
    const result = await accounts.signUp({
      email: form.data.email,
      password: form.data.password,
      invitationCode: options.signup === 'invite' ? (form.data.code ?? null) : null,
    });
    if (result.kind === 'invitation-invalid') {
      const state = { values: form.values, errors: { code: 'This invitation code is not valid for this address' } };
      return render(c, <SignupPage state={state} policy="invite" />, 400);
    }
    const { email } = form.data;
    if (result.kind === 'email-taken') {
      // An invitation code proves the mailbox: its holder may know the address is taken.
      if (options.signup === 'invite') {
        const state = { values: form.values, errors: { email: 'An account with this email exists. Sign in.' } };
        return render(c, <SignupPage state={state} policy="invite" />, 409);
      }
      // Anyone else gets the answer a new address gets, and the owner a mail.
      await accounts.warnOfSignUp(email, `${options.publicUrl ?? new URL(c.req.url).origin}${base}/login`);
      return seeOther(c, `${base}/signup/verify?email=${encodeURIComponent(email)}`);
    }
    if (result.account.account.verified) return signInAs(c, result.account.account.id);
    await accounts.sendVerification(email);
    return seeOther(c, `${base}/signup/verify?email=${encodeURIComponent(email)}`);
  });

  // The second step of sign-up: the code mailed to the address signs the new account in.
  app.get('/signup/verify', (c) => {
    const state =
      c.req.query('sent') === '1' ? { notice: 'If this address is waiting for a code, a new one is on its way.' } : {};
    return render(c, <VerifyPage state={state} email={c.req.query('email') ?? ''} signingUp />);
  });
  app.post('/signup/verify', async (c) => {
    const form = parseForm(signupVerifyBodySchema, await c.req.parseBody());
    if (!form.ok) return render(c, <VerifyPage state={form} email={form.values.email ?? ''} signingUp />, 400);
    const limited = await throttled(c, 'code', form.data.email);
    if (limited) return limited;
    const { account } = await accounts.verifyEmail(form.data.email, form.data.code);
    if (!account) {
      const state = { errors: { code: 'This code is not valid for this address, or it has expired.' } };
      return render(c, <VerifyPage state={state} email={form.data.email} signingUp />, 400);
    }
    return signInAs(c, account.account.id, `${base}?verified=1`);
  });
  app.post('/signup/verify/resend', async (c) => {
    const form = parseForm(signupResendBodySchema, await c.req.parseBody());
    if (!form.ok) return render(c, <VerifyPage state={form} email="" signingUp />, 400);
    const limited = await throttled(c, 'send-code', form.data.email);
    if (limited) return limited;
    await accounts.resendVerification(form.data.email);
    return seeOther(c, `${base}/signup/verify?email=${encodeURIComponent(form.data.email)}&sent=1`);
  });

  app.get('/login', (c) =>
    render(
      c,
      <LoginPage
        state={
          c.req.query('reset') === '1'
            ? { notice: 'Your password is set. Sign in with it.', values: { email: c.req.query('email') ?? '' } }
            : {}
        }
        signupOpen={signupOpen}
        next={nextPage(c.req.query('next'))}
        sessionEnded={c.req.query('session') === 'ended'}
      />,
    ),
  );
  app.post('/login', async (c) => {
    const body = await c.req.parseBody();
    const next = nextPage(body.next);
    const form = parseForm(loginBodySchema, body);
    if (!form.ok) {
      const state = { ...form, message: WRONG_CREDENTIALS };
      return render(c, <LoginPage state={state} signupOpen={signupOpen} next={next} />, 400);
    }
    const limited = await throttled(c, 'sign-in', form.data.email);
    if (limited) return limited;
    const account = await accounts.signIn(form.data.email, form.data.password);
    if (!account) {
      const state = { values: form.values, message: WRONG_CREDENTIALS };
      return render(c, <LoginPage state={state} signupOpen={signupOpen} next={next} />, 401);
    }
    return signInAs(c, account.account.id, next);
  });

  app.get('/login/code', (c) =>
    render(
      c,
      <CodeLoginPage
        state={{ values: { email: c.req.query('email') ?? '' } }}
        next={nextPage(c.req.query('next'))}
        sent={c.req.query('sent') === '1'}
      />,
    ),
  );
  // The same answer whether or not an account has the address: a code is mailed only if one does.
  app.post('/login/code/send', async (c) => {
    const body = await c.req.parseBody();
    const next = nextPage(body.next);
    const form = parseForm(codeRequestBodySchema, body);
    if (!form.ok) return render(c, <CodeLoginPage state={form} next={next} />, 400);
    const limited = await throttled(c, 'send-code', form.data.email);
    if (limited) return limited;
    await accounts.mailSignInCode(form.data.email);
    const query = new URLSearchParams({ email: form.data.email, sent: '1' });
    if (next !== base) query.set('next', next);
    return seeOther(c, `${base}/login/code?${query}`);
  });
  app.post('/login/code', async (c) => {
    const body = await c.req.parseBody();
    const next = nextPage(body.next);
    const form = parseForm(codeLoginBodySchema, body);
    if (!form.ok) return render(c, <CodeLoginPage state={form} next={next} />, 400);
    const limited = await throttled(c, 'code', form.data.email);
    if (limited) return limited;
    const { account } = await accounts.signInWithCode(form.data.email, form.data.code);
    if (!account) {
      const state = { values: form.values, message: 'This code is not valid for this address, or it has expired.' };
      return render(c, <CodeLoginPage state={state} next={next} />, 401);
    }
    return signInAs(c, account.account.id, next);
  });

  app.post('/logout', async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn) await sessions.end(signedIn.sessionHash);
    deleteCookie(c, sessionCookieName(options.secureCookie), { path: '/', secure: options.secureCookie });
    return seeOther(c, `${base}/login`);
  });

  app.get('/verify', (c) => {
    const signedIn = c.get('signedIn');
    if (!signedIn) return seeOther(c, `${base}/login`);
    if (signedIn.account.account.verified) return seeOther(c, base);
    const state = c.req.query('sent') === '1' ? { notice: 'A new code is on its way.' } : {};
    return render(c, <VerifyPage state={state} email={signedIn.account.account.email} />);
  });
  app.post('/verify', async (c) => {
    const signedIn = c.get('signedIn');
    if (!signedIn) return seeOther(c, `${base}/login`);
    const email = signedIn.account.account.email;
    const form = parseForm(verifyBodySchema, await c.req.parseBody());
    if (!form.ok) return render(c, <VerifyPage state={form} email={email} />, 400);
    const limited = await throttled(c, 'code', email);
    if (limited) return limited;
    const result = await accounts.verify(signedIn.account, form.data.code);
    if (result.kind === 'valid') return seeOther(c, `${base}?verified=1`);
    const message =
      result.kind === 'invalid'
        ? `That code is not right. ${result.attemptsLeft} ${result.attemptsLeft === 1 ? 'try' : 'tries'} left.`
        : 'This code has expired or was used up. Send a new one.';
    return render(c, <VerifyPage state={{ errors: { code: message } }} email={email} />, 400);
  });
  app.post('/verify/resend', async (c) => {
    const signedIn = c.get('signedIn');
    if (!signedIn) return seeOther(c, `${base}/login`);
    const limited = await throttled(c, 'send-code', signedIn.account.account.email);
    if (limited) return limited;
    await accounts.sendVerification(signedIn.account.account.email);
    return seeOther(c, `${base}/verify?sent=1`);
  });

  app.get('/reset', (c) => render(c, <ResetRequestPage state={{}} />));
  app.post('/reset', async (c) => {
    const form = parseForm(resetRequestBodySchema, await c.req.parseBody());
    if (!form.ok) return render(c, <ResetRequestPage state={form} />, 400);
    const limited = await throttled(c, 'send-code', form.data.email);
    if (limited) return limited;
    await accounts.requestReset(form.data.email);
    return seeOther(c, `${base}/reset/confirm?email=${encodeURIComponent(form.data.email)}`);
  });
  app.get('/reset/confirm', (c) =>
    render(c, <ResetConfirmPage state={{ values: { email: c.req.query('email') ?? '' } }} />),
  );
  app.post('/reset/confirm', async (c) => {
    const form = parseForm(resetConfirmBodySchema, await c.req.parseBody());
    if (!form.ok) return render(c, <ResetConfirmPage state={form} />, 400);
    const limited = await throttled(c, 'code', form.data.email);
    if (limited) return limited;
    const result = await accounts.reset(form.data.email, form.data.code, form.data.password);
    if (result.kind !== 'valid') {
      const state = {
        values: form.values,
        errors: { code: 'This code is not valid for this address, or it has expired.' },
      };
      return render(c, <ResetConfirmPage state={state} />, 400);
    }
    // Post/redirect/get: a reload of the sign-in page never sends the used code again.
    const query = new URLSearchParams({ email: form.data.email, reset: '1' });
    return seeOther(c, `${base}/login?${query}`);
  });
}
