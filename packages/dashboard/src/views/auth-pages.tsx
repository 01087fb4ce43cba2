/** @jsxImportSource hono/jsx */
import { MIN_PASSWORD_LENGTH } from '../domain/passwords.js';
import { Field, Layout, Notice, usePage } from './layout.js';

/** Field errors of a form, by field name, and one message for the whole form. */
export interface FormState {
  values?: Record<string, string>;
  errors?: Record<string, string>;
  message?: string;
  notice?: string;
}

/** A new password's field, with the rule it must meet (a reset, a change on the account page). */
export function NewPasswordField(props: { error: string | undefined }) {
  return (
    <Field
      label="New password"
      name="password"
      type="password"
      autocomplete="new-password"
      minlength={MIN_PASSWORD_LENGTH}
      hint={`At least ${MIN_PASSWORD_LENGTH} characters, and not easy to guess: a few words work well.`}
      error={props.error}
    />
  );
}

function FormMessages(props: { state: FormState }) {
  return (
    <>
      {props.state.message ? <Notice kind="error">{props.state.message}</Notice> : null}
      {props.state.notice ? <Notice kind="success">{props.state.notice}</Notice> : null}
    </>
  );
}

function AuthCard(props: { title: string; children: unknown }) {
  return (
    <Layout title={props.title}>
      <section class="card narrow">
        <h1>{props.title}</h1>
        {props.children as never}
      </section>
    </Layout>
  );
}

/** Sign-up: email and password, plus the invitation code when sign-up is by invitation. */
export function SignupPage(props: { state: FormState; policy: 'open' | 'invite' | 'closed' }) {
  const ctx = usePage();
  const { state } = props;
  if (props.policy === 'closed') {
    return (
      <AuthCard title="Create an account">
        <Notice kind="info">This Tidings server does not take new accounts. Ask its operator.</Notice>
        <p>
          Already have an account? <a href={`${ctx.base}/login`}>Sign in</a>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Create an account">
      <FormMessages state={state} />
      <form method="post" action={`${ctx.base}/signup`} novalidate>
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="email"
          value={state.values?.email}
          error={state.errors?.email}
          autofocus
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autocomplete="new-password"
          minlength={MIN_PASSWORD_LENGTH}
          hint={`At least ${MIN_PASSWORD_LENGTH} characters, and not easy to guess: a few words work well.`}
          error={state.errors?.password}
        />
        {props.policy === 'invite' ? (
          <Field
            label="Invitation code"
            name="code"
            inputmode="numeric"
            autocomplete="one-time-code"
            hint="Sign-up here is by invitation: the code is in the invitation mail."
            value={state.values?.code}
            error={state.errors?.code}
          />
        ) : null}
        <button type="submit">Create account</button>
      </form>
      <p>
        Already have an account? <a href={`${ctx.base}/login`}>Sign in</a>
      </p>
    </AuthCard>
  );
}

/** Sign-in with email and password. */
/** The page sign-in leads to, carried through the form when it is not the projects page. */
function NextPage(props: { next: string | undefined }) {
  const ctx = usePage();
  return props.next && props.next !== ctx.base ? <input type="hidden" name="next" value={props.next} /> : null;
}

export function LoginPage(props: { state: FormState; signupOpen: boolean; next?: string; sessionEnded?: boolean }) {
  const ctx = usePage();
  const { state } = props;
  const codeLink = props.next && props.next !== ctx.base ? `?next=${encodeURIComponent(props.next)}` : '';
  return (
    <AuthCard title="Sign in">
      {props.sessionEnded ? (
        <Notice kind="info">
          <span data-session-ended="">
            Your session has ended, so nothing was changed. Sign in again to go back to the page you were on
            {props.next ? '' : ' (the projects page)'}; with JavaScript on, what you typed there is filled in again.
          </span>
        </Notice>
      ) : null}
      <FormMessages state={state} />
      <form method="post" action={`${ctx.base}/login`} novalidate>
        <NextPage next={props.next} />
        <Field label="Email" name="email" type="email" autocomplete="email" value={state.values?.email} autofocus />
        <Field label="Password" name="password" type="password" autocomplete="current-password" />
        <button type="submit">Sign in</button>
      </form>
      <p class="links">
        <a href={`${ctx.base}/reset`}>Forgot your password?</a>
        <a href={`${ctx.base}/login/code${codeLink}`}>Sign in with a one-time code</a>
        {props.signupOpen ? <a href={`${ctx.base}/signup`}>Create an account</a> : null}
      </p>
    </AuthCard>
  );
}

/**
 * Sign-in with a one-time code: mailed to the account's address on request (or printed by
 * `tidings account sign-in-code`, or by `npm start` for its demo account), then entered here.
 */
export function CodeLoginPage(props: { state: FormState; next?: string; sent?: boolean }) {
  const ctx = usePage();
  const { state } = props;
  const email = state.values?.email;
  return (
    <AuthCard title="Sign in with a code">
      <FormMessages state={state} />
      {props.sent ? (
        <Notice kind="success">
          If an account has the address {email}, a sign-in code is on its way there. It is good for 15 minutes.
        </Notice>
      ) : (
        <form method="post" action={`${ctx.base}/login/code/send`} novalidate>
          <NextPage next={props.next} />
          <Field
            label="Your email address"
            name="email"
            id="field-send-email"
            type="email"
            autocomplete="email"
            value={email}
          />
          <button type="submit">Email me a sign-in code</button>
        </form>
      )}
      <h2>{props.sent ? 'Enter the code' : 'Have a code? Enter it'}</h2>
      <form method="post" action={`${ctx.base}/login/code`} novalidate>
        <NextPage next={props.next} />
        <Field label="Email" name="email" type="email" autocomplete="email" value={email} />
        <Field label="Code" name="code" inputmode="numeric" autocomplete="one-time-code" error={state.errors?.code} />
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">
        An operator can also print a code with <code>tidings account sign-in-code --email …</code>.
      </p>
      <p>
        <a href={`${ctx.base}/login`}>Sign in with a password</a>
      </p>
    </AuthCard>
  );
}

/** Email verification by a 6-digit code, with a resend button. */
export function VerifyPage(props: { state: FormState; email: string; signingUp?: boolean }) {
  const ctx = usePage();
  const { state, signingUp = false } = props;
  // Signing up, nobody is signed in yet: the address travels with the code.
  const action = signingUp ? `${ctx.base}/signup/verify` : `${ctx.base}/verify`;
  const email = signingUp ? <input type="hidden" name="email" value={props.email} /> : null;
  return (
    <AuthCard title="Verify your email">
      <FormMessages state={state} />
      <p>
        We sent a 6-digit code to <strong>{props.email}</strong>. It is good for 15 minutes.{' '}
        {signingUp ? 'Enter it to finish creating your account.' : 'Creating a project needs a verified address.'}
      </p>
      <form method="post" action={action} novalidate>
        {email}
        <Field
          label="Verification code"
          name="code"
          inputmode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          maxlength={6}
          error={state.errors?.code}
          autofocus
        />
        <button type="submit">Verify</button>
      </form>
      <form method="post" action={`${action}/resend`} class="secondary-form">
        {email}
        <button type="submit" class="secondary">
          Send a new code
        </button>
      </form>
    </AuthCard>
  );
}

/** The first step of a password reset: the address to send the code to. */
export function ResetRequestPage(props: { state: FormState }) {
  const ctx = usePage();
  const { state } = props;
  return (
    <AuthCard title="Reset your password">
      <FormMessages state={state} />
      <form method="post" action={`${ctx.base}/reset`} novalidate>
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="email"
          value={state.values?.email}
          error={state.errors?.email}
          autofocus
        />
        <button type="submit">Send a code</button>
      </form>
      <p>
        <a href={`${ctx.base}/login`}>Back to sign in</a>
      </p>
    </AuthCard>
  );
}

/** The second step: the code and the new password. */
export function ResetConfirmPage(props: { state: FormState }) {
  const ctx = usePage();
  const { state } = props;
  return (
    <AuthCard title="Choose a new password">
      <FormMessages state={state} />
      <p>If an account has this address, a 6-digit code is on its way. It is good for 15 minutes.</p>
      <form method="post" action={`${ctx.base}/reset/confirm`} novalidate>
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="email"
          value={state.values?.email}
          error={state.errors?.email}
        />
        <Field label="Code" name="code" inputmode="numeric" autocomplete="one-time-code" error={state.errors?.code} />
        <NewPasswordField error={state.errors?.password} />
        <button type="submit">Set the password</button>
      </form>
    </AuthCard>
  );
}
