/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { summariseUserAgent } from '../domain/sessions.js';
import type { SessionSummary } from '../store.js';
import { type FormState, NewPasswordField } from './auth-pages.js';
import { Field, Layout, Notice, Time, usePage } from './layout.js';

type AccountTab = 'overview' | 'password' | 'sessions' | 'security' | 'email' | 'delete';

const TABS: { tab: AccountTab; label: string; path: string }[] = [
  { tab: 'overview', label: 'Account', path: '' },
  { tab: 'password', label: 'Password', path: '/password' },
  { tab: 'sessions', label: 'Sessions', path: '/sessions' },
  { tab: 'security', label: 'Security', path: '/security' },
  { tab: 'email', label: 'Email', path: '/email' },
  { tab: 'delete', label: 'Delete account', path: '/delete' },
];

function FormMessages(props: { state: FormState }) {
  return (
    <>
      {props.state.message ? <Notice kind="error">{props.state.message}</Notice> : null}
      {props.state.notice ? <Notice kind="success">{props.state.notice}</Notice> : null}
    </>
  );
}

/** The frame of the account's pages (Security's included): a heading and their tabs. */
export function AccountFrame(props: { tab: AccountTab; title: string; children: Child }) {
  const ctx = usePage();
  return (
    <Layout title={props.title}>
      <h1>Your account</h1>
      <nav class="tabs" aria-label="Account settings">
        {TABS.map((item) => (
          <a href={`${ctx.base}/account${item.path}`} aria-current={item.tab === props.tab ? 'page' : undefined}>
            {item.label}
          </a>
        ))}
      </nav>
      {props.children}
    </Layout>
  );
}

/** The account at a glance: its address, and where to change what. */
export function AccountPage(props: { email: string; verified: boolean; sessions: number; state: FormState }) {
  const ctx = usePage();
  return (
    <AccountFrame tab="overview" title="Account">
      <FormMessages state={props.state} />
      <dl class="facts">
        <dt>Email</dt>
        <dd>
          {props.email} {props.verified ? null : <span class="badge danger">not verified</span>}
        </dd>
        <dt>Signed in</dt>
        <dd>
          {props.sessions} {props.sessions === 1 ? 'session' : 'sessions'}
        </dd>
      </dl>
      <ul class="links">
        <li>
          <a href={`${ctx.base}/account/password`}>Change your password</a>
        </li>
        <li>
          <a href={`${ctx.base}/account/sessions`}>See where you are signed in</a>
        </li>
        <li>
          <a href={`${ctx.base}/account/security`}>Add a passkey, or make new recovery codes</a>
        </li>
        <li>
          <a href={`${ctx.base}/account/email`}>Change your email address</a>
        </li>
        <li>
          <a href={`${ctx.base}/account/delete`} class="danger-link">
            Delete your account
          </a>
        </li>
      </ul>
    </AccountFrame>
  );
}

function CurrentPassword(props: { error: string | undefined; label?: string }) {
  return (
    <Field
      label={props.label ?? 'Current password'}
      name="current_password"
      type="password"
      autocomplete="current-password"
      error={props.error}
    />
  );
}

/** Change the password: the current one, and a new one. */
export function PasswordPage(props: { state: FormState }) {
  const ctx = usePage();
  const { state } = props;
  return (
    <AccountFrame tab="password" title="Change password">
      <section class="card narrow">
        <h2>Change your password</h2>
        <FormMessages state={state} />
        <form method="post" action={`${ctx.base}/account/password`} novalidate>
          <CurrentPassword error={state.errors?.current_password} />
          <NewPasswordField error={state.errors?.password} />
          <p class="hint">Your other sessions are signed out; this one stays.</p>
          <button type="submit">Change password</button>
        </form>
      </section>
    </AccountFrame>
  );
}

/** The account's sessions: when each began and was last used, from where; this one marked. */
export function SessionsPage(props: { sessions: SessionSummary[]; currentRef: string; state: FormState }) {
  const ctx = usePage();
  const others = props.sessions.filter((session) => session.ref !== props.currentRef).length;
  return (
    <AccountFrame tab="sessions" title="Sessions">
      <FormMessages state={props.state} />
      <p class="count">
        {props.sessions.length} active {props.sessions.length === 1 ? 'session' : 'sessions'}
      </p>
      <ul class="project-list" aria-label="Active sessions">
        {props.sessions.map((session) => {
          const current = session.ref === props.currentRef;
          return (
            <li data-session={current ? 'current' : 'other'}>
              <strong>{summariseUserAgent(session.userAgent)}</strong>
              {current ? <span class="badge ok">this session</span> : null}
              <span class="muted">
                {session.ip ? <>from {session.ip} · </> : null}signed in <Time at={session.createdAt} /> · last used{' '}
                <Time at={session.lastUsedAt} />
              </span>
              {current ? null : (
                <form method="post" action={`${ctx.base}/account/sessions/${session.ref}/revoke`} class="inline">
                  <button type="submit" class="secondary small">
                    Sign out this session
                  </button>
                </form>
              )}
            </li>
          );
        })}
      </ul>
      {others > 0 ? (
        <form method="post" action={`${ctx.base}/account/sessions/revoke-others`} class="secondary-form">
          <button type="submit" class="danger">
            Sign out everywhere else
          </button>
        </form>
      ) : (
        <p class="muted">You are signed in nowhere else.</p>
      )}
    </AccountFrame>
  );
}

/** Change the email address: the new one and the password; a code goes to the new one. */
export function EmailPage(props: { email: string; state: FormState }) {
  const ctx = usePage();
  const { state } = props;
  return (
    <AccountFrame tab="email" title="Change email">
      <section class="card narrow">
        <h2>Change your email address</h2>
        <p>
          You sign in as <strong>{props.email}</strong>. We mail a code to the new address; entering it makes the
          change, and the old address gets a notice.
        </p>
        <FormMessages state={state} />
        <form method="post" action={`${ctx.base}/account/email`} novalidate>
          <Field
            label="New email address"
            name="email"
            type="email"
            autocomplete="email"
            value={state.values?.email}
            error={state.errors?.email}
          />
          <CurrentPassword error={state.errors?.current_password} />
          <button type="submit">Send a code</button>
        </form>
      </section>
    </AccountFrame>
  );
}

/** The second step of an email change: the code mailed to the new address. */
export function EmailConfirmPage(props: { newEmail: string; state: FormState }) {
  const ctx = usePage();
  const { state } = props;
  return (
    <AccountFrame tab="email" title="Confirm new email">
      <section class="card narrow">
        <h2>Enter the code</h2>
        <p>
          If <strong>{props.newEmail}</strong> can be used, a 6-digit code is on its way there. It is good for 15
          minutes.
        </p>
        <FormMessages state={state} />
        <form method="post" action={`${ctx.base}/account/email/confirm`} novalidate>
          <input type="hidden" name="email" value={props.newEmail} />
          <Field
            label="Code"
            name="code"
            inputmode="numeric"
            autocomplete="one-time-code"
            value={state.values?.code}
            error={state.errors?.code}
            autofocus
          />
          <button type="submit">Change my email address</button>
        </form>
        <p>
          <a href={`${ctx.base}/account/email`}>Use another address</a>
        </p>
      </section>
    </AccountFrame>
  );
}

/** Delete the account: the password and the email typed again. */
export function DeleteAccountPage(props: { email: string; projects: number; state: FormState }) {
  const ctx = usePage();
  const { state } = props;
  return (
    <AccountFrame tab="delete" title="Delete account">
      <section class="card narrow">
        <h2>Delete your account</h2>
        <FormMessages state={state} />
        <Notice kind="error">
          This takes effect at once and cannot be undone: your {props.projects}{' '}
          {props.projects === 1 ? 'project is' : 'projects are'} deleted with all they hold (their API keys stop working
          at once), every session of yours ends, and the account is removed. The address may sign up again afterwards.
        </Notice>
        <form method="post" action={`${ctx.base}/account/delete`} novalidate>
          <Field
            label="Type your email address to confirm"
            name="confirm_email"
            type="email"
            autocomplete="off"
            hint={`It is ${props.email}.`}
            value={state.values?.confirm_email}
            error={state.errors?.confirm_email}
          />
          <CurrentPassword error={state.errors?.current_password} label="Password" />
          <div class="actions">
            <button type="submit" class="danger">
              Delete my account
            </button>
            <a href={`${ctx.base}/account`}>Cancel</a>
          </div>
        </form>
      </section>
    </AccountFrame>
  );
}

/** After an account's deletion: nobody is signed in any more. */
export function AccountDeletedPage() {
  const ctx = usePage();
  return (
    <Layout title="Account deleted">
      <section class="card narrow">
        <h1>Your account is deleted</h1>
        <p>Its projects, keys and sessions are gone. Thank you for using Tidings.</p>
        <p>
          <a href={`${ctx.base}/signup`}>Create an account</a> · <a href={`${ctx.base}/login`}>Sign in</a>
        </p>
      </section>
    </Layout>
  );
}
