/** @jsxImportSource hono/jsx */

import { MAX_PASSKEY_NAME_LENGTH } from '../limits.js';
import type { PasskeyRecord } from '../store.js';
import { AccountFrame } from './account-pages.js';
import type { FormState } from './auth-pages.js';
import { Clip } from './clip.js';
import { DataTable } from './data-table.js';
import { Field, Layout, Notice, Time, usePage } from './layout.js';

function Messages(props: { state: FormState }) {
  return (
    <>
      {props.state.message ? <Notice kind="error">{props.state.message}</Notice> : null}
      {props.state.notice ? <Notice kind="success">{props.state.notice}</Notice> : null}
    </>
  );
}

/** The script of the passkey forms, on the pages that have one only. */
function PasskeyScript() {
  const ctx = usePage();
  return <script src={`${ctx.base}/assets/passkeys.js`} defer />;
}

/** Where the script says what the browser's passkey prompt answered. */
function WebAuthnStatus() {
  return <p class="field-error" data-webauthn-status role="alert" />;
}

/** New recovery codes, shown once: the script forgets them as soon as the page is left. */
function RecoveryCodes(props: { codes: string[] }) {
  const ctx = usePage();
  return (
    <section
      class="card reveal"
      data-replace-url={`${ctx.base}/account/security`}
      data-revealed="recovery codes"
      aria-labelledby="codes-title"
    >
      <h2 id="codes-title">Your recovery codes</h2>
      <Notice kind="info">
        Keep these codes somewhere safe, apart from your passkey: each one signs you in once when your passkey is not at
        hand. They are shown only now.
      </Notice>
      <ul class="recovery-codes" id="recovery-codes">
        {props.codes.map((code) => (
          <li>
            <code data-secret>{code}</code>
          </li>
        ))}
      </ul>
      {/* Shown by the script, which copies the codes one a line or saves them as a text file. */}
      <div class="actions">
        <button type="button" class="copy" data-copy="recovery-codes" hidden>
          Copy
        </button>
        <button
          type="button"
          class="secondary"
          data-download="recovery-codes"
          data-filename="tidings-recovery-codes.txt"
          hidden
        >
          Download
        </button>
      </div>
      <p class="hint" id="copy-status" role="status" aria-live="polite">
        Write them down, or select them and copy them.
      </p>
    </section>
  );
}

function PasskeyTable(props: { passkeys: PasskeyRecord[] }) {
  if (props.passkeys.length === 0) {
    return <p class="empty">No passkeys yet: signing in takes your password alone.</p>;
  }
  return (
    <DataTable label="Passkeys" columns={['Name', 'Added', 'Last used']}>
      {props.passkeys.map((passkey) => (
        <tr data-passkey={passkey.name}>
          <td>
            <Clip text={passkey.name} />
          </td>
          <td>
            <Time at={passkey.createdAt} />
          </td>
          <td>
            <Time at={passkey.lastUsedAt} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/**
 * The account's security: its passkeys (add, list, remove with the password) and its recovery
 * codes (how many are left, new ones with the password; new codes are shown once, here).
 */
export function SecurityPage(props: {
  passkeys: PasskeyRecord[];
  recoveryCodesLeft: number;
  registrationOptions: string;
  state: FormState;
  newCodes?: string[] | undefined;
}) {
  const ctx = usePage();
  const { passkeys, state } = props;
  return (
    <AccountFrame tab="security" title="Security">
      <h2>Security</h2>
      <Messages state={state} />
      {props.newCodes ? <RecoveryCodes codes={props.newCodes} /> : null}
      <section class="card" aria-labelledby="passkeys-title">
        <h2 id="passkeys-title">Passkeys</h2>
        <p>
          With a passkey, signing in asks for it after your password (or sign-in code): a stolen password alone no
          longer opens your account.
        </p>
        <PasskeyTable passkeys={passkeys} />
        <h3>Add a passkey</h3>
        <noscript>
          <Notice kind="info">Adding a passkey needs JavaScript, which is off in this browser.</Notice>
        </noscript>
        <form
          method="post"
          action={`${ctx.base}/account/security/passkeys`}
          data-webauthn="register"
          data-options={props.registrationOptions}
          novalidate
        >
          <Field
            label="Passkey name"
            name="name"
            limit={MAX_PASSKEY_NAME_LENGTH}
            hint="A name to tell it apart, e.g. “work laptop” or “phone”."
            value={state.values?.name}
            error={state.errors?.name}
          />
          <input type="hidden" name="response" value="" />
          <WebAuthnStatus />
          <button type="submit">Add a passkey</button>
        </form>
      </section>
      {passkeys.length > 0 ? (
        <>
          <section class="card" aria-labelledby="remove-title">
            <h2 id="remove-title">Remove a passkey</h2>
            <form method="post" action={`${ctx.base}/account/security/passkeys/remove`} novalidate>
              <div class="field">
                <label for="field-credential">Passkey</label>
                <select id="field-credential" name="credential">
                  {passkeys.map((passkey) => (
                    <option value={passkey.credentialId}>{passkey.name}</option>
                  ))}
                </select>
              </div>
              <Field
                label="Current password"
                name="password"
                type="password"
                autocomplete="current-password"
                error={state.errors?.removePassword}
              />
              <button type="submit" class="danger">
                Remove the passkey
              </button>
            </form>
          </section>
          <section class="card" aria-labelledby="recovery-title">
            <h2 id="recovery-title">Recovery codes</h2>
            <p class="count">
              {props.recoveryCodesLeft} unused recovery {props.recoveryCodesLeft === 1 ? 'code' : 'codes'} left
            </p>
            <p>New codes replace every earlier one.</p>
            <form method="post" action={`${ctx.base}/account/security/recovery-codes`} novalidate>
              {/* Written out: the remove form above has a password field too, and ids must differ. */}
              <div class="field">
                <label for="field-codes-password">Current password</label>
                <input
                  id="field-codes-password"
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  required
                  aria-describedby={state.errors?.codesPassword ? 'field-codes-password-error' : undefined}
                  aria-invalid={state.errors?.codesPassword ? 'true' : undefined}
                />
                {state.errors?.codesPassword ? (
                  <p class="field-error" id="field-codes-password-error">
                    {state.errors.codesPassword}
                  </p>
                ) : null}
              </div>
              <button type="submit" class="secondary">
                Make new recovery codes
              </button>
            </form>
          </section>
        </>
      ) : null}
      <PasskeyScript />
    </AccountFrame>
  );
}

/** The second step of signing in: the passkey, or a recovery code (which works without JavaScript). */
export function SecondFactorPage(props: { state: FormState; authenticationOptions: string }) {
  const ctx = usePage();
  const { state } = props;
  return (
    <Layout title="Confirm it is you">
      <section class="card narrow">
        <h1>Confirm it is you</h1>
        <Messages state={state} />
        <p>Your account has a passkey: use it to finish signing in.</p>
        <noscript>
          <Notice kind="info">
            Using a passkey needs JavaScript, which is off in this browser. Sign in with a recovery code below instead.
          </Notice>
        </noscript>
        <form
          method="post"
          action={`${ctx.base}/login/second-factor/passkey`}
          data-webauthn="authenticate"
          data-options={props.authenticationOptions}
        >
          <input type="hidden" name="response" value="" />
          <WebAuthnStatus />
          <button type="submit">Use your passkey</button>
        </form>
        <h2>No passkey at hand?</h2>
        <form method="post" action={`${ctx.base}/login/second-factor/recovery`} novalidate>
          <Field
            label="Recovery code"
            name="code"
            autocomplete="one-time-code"
            hint="One of the codes you kept when you added your first passkey, like ABCDE-FGHJK."
            error={state.errors?.code}
          />
          <button type="submit" class="secondary">
            Sign in with a recovery code
          </button>
        </form>
        <p>
          <a href={`${ctx.base}/login`}>Start again</a>
        </p>
      </section>
      <PasskeyScript />
    </Layout>
  );
}
