/** @jsxImportSource hono/jsx */
import type { ApiKeyObject, ProjectObject } from '@tidings/core';
import { MAX_NAME_LENGTH } from '../limits.js';
import type { FormState } from './auth-pages.js';
import { Clip } from './clip.js';
import { DataTable } from './data-table.js';
import { FirstSendPanel, type FirstSendProps } from './first-send.js';
import { Field, Notice, Time, usePage } from './layout.js';
import { ProjectFrame } from './project-frame.js';

function KeyTable(props: { project: ProjectObject; keys: ApiKeyObject[] }) {
  const ctx = usePage();
  const { project } = props;
  if (props.keys.length === 0) return <p class="empty">No keys yet.</p>;
  return (
    <DataTable
      label="API keys"
      columns={['Name', 'Key', 'Mode', 'Created', 'Last used', 'Status', { label: 'Actions', hidden: true }]}
    >
      {props.keys.map((key) => (
        <tr data-key-id={key.id}>
          <td>{key.name ? <Clip text={key.name} /> : <span class="muted">unnamed</span>}</td>
          <td>
            <code>{key.prefix}…</code>
          </td>
          <td>
            <span class={`badge ${key.mode}`}>{key.mode}</span>
          </td>
          <td>
            <Time at={key.created_at} />
          </td>
          <td class="last-used">
            <Time at={key.last_used_at} />
          </td>
          <td>
            {key.revoked_at === null ? (
              <span class="badge ok">active</span>
            ) : (
              <span class="badge muted-badge">
                revoked <Time at={key.revoked_at} />
              </span>
            )}
          </td>
          <td>
            {key.revoked_at === null ? (
              <a class="danger-link" href={`${ctx.base}/projects/${project.id}/keys/${key.id}/revoke`}>
                Revoke<span class="visually-hidden"> {key.name ?? key.prefix}</span>
              </a>
            ) : null}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/**
 * A project's keys: the list with n/limit active, and the form to create one; while the project
 * has sent nothing yet, the first send's panel.
 */
export function KeysPage(props: {
  project: ProjectObject;
  keys: ApiKeyObject[];
  limit: number;
  state: FormState;
  firstSend?: FirstSendProps | null;
}) {
  const { project, keys, state } = props;
  const active = keys.filter((key) => key.revoked_at === null).length;
  return (
    <ProjectFrame project={project} tab="keys" title="API keys">
      {state.message ? <Notice kind="error">{state.message}</Notice> : null}
      {state.notice ? <Notice kind="success">{state.notice}</Notice> : null}
      <h2>API keys</h2>
      <p class="count">
        {active}/{props.limit} active keys
      </p>
      <KeyTable project={project} keys={keys} />
      {active >= props.limit ? (
        <section class="card">
          <h2>New key</h2>
          <Notice kind="info">
            This project has {active} of its {props.limit} active keys. Revoke a key you no longer use to create
            another.
          </Notice>
        </section>
      ) : (
        <NewKeyForm project={project} state={state} />
      )}
      {props.firstSend ? <FirstSendPanel {...props.firstSend} /> : null}
    </ProjectFrame>
  );
}

/** The form that creates a key: a name (required) and a mode. */
function NewKeyForm(props: { project: ProjectObject; state: FormState }) {
  const ctx = usePage();
  const { project, state } = props;
  const mode = state.values?.mode ?? 'live';
  return (
    <section class="card">
      <h2>New key</h2>
      <p class="muted">
        A live key sends real notifications and counts toward usage; a test key runs the same checks and sends nothing.
        The full key is shown once, right after you create it.
      </p>
      <form method="post" action={`${ctx.base}/projects/${project.id}/keys`} class="row-form" novalidate>
        <Field
          label="Key name"
          name="name"
          limit={MAX_NAME_LENGTH}
          value={state.values?.name}
          error={state.errors?.name}
          hint="Where it is used, e.g. “production server”."
        />
        <fieldset class="modes">
          <legend>Mode</legend>
          <label>
            <input type="radio" name="mode" value="live" checked={mode === 'live'} /> Live
          </label>
          <label>
            <input type="radio" name="mode" value="test" checked={mode === 'test'} /> Test
          </label>
          {state.errors?.mode ? <p class="field-error">{state.errors.mode}</p> : null}
        </fieldset>
        <button type="submit">Create key</button>
      </form>
    </section>
  );
}

/**
 * The answer to the POST that created a key: the only response that ever carries it. The script
 * replaces this history entry with the keys list and wipes the key when the page is left, so
 * neither a reload nor back/forward shows it again.
 */
export function KeyCreatedPage(props: {
  project: ProjectObject;
  apiKey: ApiKeyObject;
  fullKey: string;
  firstSend: FirstSendProps;
}) {
  const ctx = usePage();
  const { project, apiKey: key } = props;
  const keysUrl = `${ctx.base}/projects/${project.id}`;
  return (
    <ProjectFrame project={project} tab="keys" title="New key">
      <section class="card reveal" data-replace-url={keysUrl}>
        <h2>
          Your new {key.mode} key{key.name ? `: ${key.name}` : ''}
        </h2>
        <Notice kind="info">
          <strong>Copy it now: it will not be shown again.</strong> Tidings keeps only a hash of it. If you lose it,
          revoke it and create another.
        </Notice>
        <div class="secret-row">
          <code id="new-key" class="secret" data-secret tabindex={-1} autofocus>
            {props.fullKey}
          </code>
          <button type="button" class="copy" data-copy="new-key" hidden>
            Copy
          </button>
        </div>
        <p class="hint" id="copy-status" role="status" aria-live="polite">
          Select the key and copy it.
        </p>
        <p>
          <a class="button" href={keysUrl}>
            I have copied it
          </a>
        </p>
      </section>
      <FirstSendPanel {...props.firstSend} />
    </ProjectFrame>
  );
}

/** The confirmation before revoking: at once, and for good. */
export function RevokePage(props: { project: ProjectObject; apiKey: ApiKeyObject }) {
  const ctx = usePage();
  const { project, apiKey: key } = props;
  return (
    <ProjectFrame project={project} tab="keys" title="Revoke key">
      <section class="card narrow">
        <h2>Revoke {key.name ?? 'this key'}?</h2>
        <p>
          <code>{key.prefix}…</code> ({key.mode}), created <Time at={key.created_at} />, last used{' '}
          <Time at={key.last_used_at} />.
        </p>
        <Notice kind="error">
          Revoking takes effect at once: the next API request with this key gets 401 UNAUTHORIZED. It cannot be undone.
        </Notice>
        <form method="post" action={`${ctx.base}/projects/${project.id}/keys/${key.id}/revoke`} class="actions">
          <button type="submit" class="danger">
            Revoke the key
          </button>
          <a href={`${ctx.base}/projects/${project.id}`}>Cancel</a>
        </form>
      </section>
    </ProjectFrame>
  );
}
