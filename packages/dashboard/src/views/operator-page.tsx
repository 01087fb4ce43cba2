/** @jsxImportSource hono/jsx */
import { MAX_SEARCH_QUERY_LENGTH, MAX_SUSPENSION_REASON_LENGTH, type ProjectObject } from '@tidings/core';
import { counterText } from '../client/length-counter.js';
import type { SignupPolicy } from '../options.js';
import type { DashboardAccount, InvitationRecord } from '../store.js';
import type { FormState } from './auth-pages.js';
import { Clip } from './clip.js';
import { DataTable } from './data-table.js';
import { Field, Layout, Notice, Time, usePage } from './layout.js';

/** Where the operators' page is, with a search and a page of each list; defaults are left out. */
export interface OperatorQuery {
  q: string;
  projectsPage: number;
  accountsPage: number;
}

/** The operators' page's URL for a query: what the pagers and the confirmation pages link back to. */
export function operatorUrl(base: string, query: OperatorQuery): string {
  const params = new URLSearchParams();
  if (query.q !== '') params.set('q', query.q);
  if (query.projectsPage > 1) params.set('projects_page', String(query.projectsPage));
  if (query.accountsPage > 1) params.set('accounts_page', String(query.accountsPage));
  const search = params.toString();
  return `${base}/operator${search ? `?${search}` : ''}`;
}

/** Previous and next links of one list, keeping the search and the other list's page. */
function Pager(props: {
  label: string;
  page: number;
  total: number;
  pageSize: number;
  link: (page: number) => string;
}) {
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize));
  if (pages <= 1 && props.page <= 1) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      {props.page > 1 ? (
        <a href={props.link(Math.min(props.page - 1, pages))} rel="prev">
          Previous<span class="visually-hidden"> {props.label.toLowerCase()}</span>
        </a>
      ) : null}
      <span class="muted">
        Page {props.page} of {pages}
      </span>
      {props.page < pages ? (
        <a href={props.link(props.page + 1)} rel="next">
          Next<span class="visually-hidden"> {props.label.toLowerCase()}</span>
        </a>
      ) : null}
    </nav>
  );
}

/** Every account and project, a page at a time and searchable; suspend and resume, verify, invite. */
export function OperatorPage(props: {
  query: OperatorQuery;
  projects: { project: ProjectObject; accountEmail: string }[];
  projectsTotal: number;
  accounts: DashboardAccount[];
  accountsTotal: number;
  pageSize: number;
  invitations: InvitationRecord[];
  signup: SignupPolicy;
  /** Whether webhook secrets and the VAPID private key are sealed in the store under a secrets key. */
  secretsSealed: boolean;
  state: FormState;
}) {
  const ctx = usePage();
  const { state, query } = props;
  const here = operatorUrl(ctx.base, query);
  const back = encodeURIComponent(here);
  const first = (page: number, total: number) => (total === 0 ? 0 : (page - 1) * props.pageSize + 1);
  const shown = (page: number, count: number, total: number) =>
    total === 0 ? 'none' : `${first(page, total)}–${first(page, total) + count - 1} of ${total}`;
  return (
    <Layout title="Operator">
      <h1>Operator</h1>
      {state.message ? <Notice kind="error">{state.message}</Notice> : null}
      {state.notice ? <Notice kind="success">{state.notice}</Notice> : null}
      {props.secretsSealed ? null : (
        <Notice kind="info">
          Secrets are stored unsealed: no secrets key is set, so a copy of the database holds the webhook signing
          secrets and the VAPID private key as they are. Set <code>TIDINGS_SECRETS_KEY</code> (see Secrets at rest in
          docs/deploy.md).
        </Notice>
      )}
      <p class="muted">
        Sign-up on this server: <strong>{props.signup}</strong>
        {props.signup === 'open'
          ? ' (anyone may create an account)'
          : props.signup === 'invite'
            ? ' (only people invited below)'
            : ' (nobody; create accounts with the CLI)'}
        . It is set with <code>tidings serve --signup open|invite|closed</code>.
      </p>
      {props.signup === 'invite' ? (
        <section class="card">
          <h2>Invite someone</h2>
          <form method="post" action={`${ctx.base}/operator/invitations`} class="row-form" novalidate>
            <Field label="Email" name="email" type="email" value={state.values?.email} error={state.errors?.email} />
            <button type="submit">Send an invitation</button>
          </form>
        </section>
      ) : null}
      {props.invitations.length > 0 ? (
        <>
          <h2>Pending invitations ({props.invitations.length})</h2>
          <DataTable
            label="Pending invitations"
            columns={['Email', 'Invited by', 'Sent', 'Expires', { label: 'Actions', hidden: true }]}
          >
            {props.invitations.map((invitation) => (
              <tr data-invitation={invitation.email}>
                <td>
                  <Clip text={invitation.email} />
                </td>
                <td>
                  {invitation.invitedBy ? <Clip text={invitation.invitedBy} /> : <span class="muted">unknown</span>}
                </td>
                <td>
                  <Time at={invitation.createdAt} />
                </td>
                <td>
                  <Time at={invitation.expiresAt} />
                </td>
                <td>
                  <a
                    class="danger-link"
                    href={`${ctx.base}/operator/invitations/${encodeURIComponent(invitation.email)}/revoke`}
                  >
                    Revoke<span class="visually-hidden"> the invitation of {invitation.email}</span>
                  </a>
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      ) : null}
      <search>
        <form method="get" action={`${ctx.base}/operator`} class="row-form search-form">
          <Field
            label="Search accounts and projects"
            name="q"
            type="search"
            value={query.q}
            required={false}
            limit={MAX_SEARCH_QUERY_LENGTH}
            error={state.errors?.q}
            hint="Part of an email, a project name or an id"
          />
          <button type="submit">Search</button>
          {query.q !== '' ? <a href={`${ctx.base}/operator`}>Show all</a> : null}
        </form>
      </search>
      <h2>
        Projects <span class="muted">({shown(query.projectsPage, props.projects.length, props.projectsTotal)})</span>
      </h2>
      {props.projects.length === 0 ? (
        <p class="empty">{query.q === '' ? 'No projects yet.' : 'No project matches.'}</p>
      ) : (
        <DataTable
          label="Projects"
          columns={['Project', 'Account', 'Created', 'Status', { label: 'Actions', hidden: true }]}
        >
          {props.projects.map(({ project, accountEmail }) => (
            <tr data-project-id={project.id}>
              <td>
                <Clip text={project.name} />
                <div class="muted">
                  <Clip text={project.id} code />
                </div>
              </td>
              <td>
                <Clip text={accountEmail} />
              </td>
              <td>
                <Time at={project.created_at} />
              </td>
              <td>
                {project.suspended ? (
                  <>
                    <span class="badge danger">suspended</span>
                    {project.suspended_reason ? <span class="reason"> {project.suspended_reason}</span> : null}
                    {project.suspended_by ? <span class="muted"> by {project.suspended_by}</span> : null}
                  </>
                ) : (
                  <span class="badge ok">active</span>
                )}
              </td>
              <td>
                <a
                  class={project.suspended ? undefined : 'danger-link'}
                  href={`${ctx.base}/operator/projects/${project.id}/${project.suspended ? 'resume' : 'suspend'}?back=${back}`}
                >
                  {project.suspended ? 'Resume' : 'Suspend'}
                  <span class="visually-hidden"> {project.name}</span>
                </a>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager
        label="Projects"
        page={query.projectsPage}
        total={props.projectsTotal}
        pageSize={props.pageSize}
        link={(page) => operatorUrl(ctx.base, { ...query, projectsPage: page })}
      />
      <h2>
        Accounts <span class="muted">({shown(query.accountsPage, props.accounts.length, props.accountsTotal)})</span>
      </h2>
      {props.accounts.length === 0 ? (
        <p class="empty">{query.q === '' ? 'No accounts yet.' : 'No account matches.'}</p>
      ) : (
        <DataTable label="Accounts" columns={['Email', 'Created', 'Email verified', 'Role']}>
          {props.accounts.map(({ account, operator }) => (
            <tr data-account-id={account.id}>
              <td>
                <Clip text={account.email} />
                <div class="muted">
                  <Clip text={account.id} code />
                </div>
              </td>
              <td>
                <Time at={account.createdAt} />
              </td>
              <td>
                {account.verified ? (
                  'yes'
                ) : (
                  <form method="post" action={`${ctx.base}/operator/accounts/${account.id}/verify`} class="inline">
                    no{' '}
                    <button type="submit" class="secondary small">
                      Verify by hand<span class="visually-hidden"> {account.email}</span>
                    </button>
                  </form>
                )}
              </td>
              <td>{operator ? 'operator' : 'customer'}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager
        label="Accounts"
        page={query.accountsPage}
        total={props.accountsTotal}
        pageSize={props.pageSize}
        link={(page) => operatorUrl(ctx.base, { ...query, accountsPage: page })}
      />
    </Layout>
  );
}

/** The confirmation of a suspension or a resumption, with its required reason. */
export function SuspensionPage(props: {
  project: ProjectObject;
  accountEmail: string;
  action: 'suspend' | 'resume';
  back: string;
  state: FormState;
}) {
  const ctx = usePage();
  const { project, action, state } = props;
  const error = state.errors?.reason;
  const reason = state.values?.reason ?? '';
  const verb = action === 'suspend' ? 'Suspend' : 'Resume';
  return (
    <Layout title={`${verb} ${project.name}`}>
      <section class="card narrow">
        <h1>
          {verb} {project.name}?
        </h1>
        <p>
          <code>{project.id}</code> of {props.accountEmail}, created <Time at={project.created_at} />.
        </p>
        {state.message ? <Notice kind="error">{state.message}</Notice> : null}
        {action === 'suspend' ? (
          <Notice kind="info">
            From now on every API request with its keys gets 403 PROJECT_SUSPENDED and its open streams close. Its owner
            sees the reason on the project’s pages.
          </Notice>
        ) : (
          <Notice kind="info">Its keys work again at once. The reason goes to the audit log.</Notice>
        )}
        <form method="post" action={`${ctx.base}/operator/projects/${project.id}/${action}`} novalidate>
          <input type="hidden" name="back" value={props.back} />
          <div class="field">
            <label for="field-reason">Reason</label>
            <textarea
              id="field-reason"
              name="reason"
              rows={4}
              required
              data-limit={MAX_SUSPENSION_REASON_LENGTH}
              data-counter="field-reason-count"
              aria-describedby={`field-reason-hint field-reason-count${error ? ' field-reason-error' : ''}`}
              aria-invalid={error ? 'true' : undefined}
            >
              {reason}
            </textarea>
            <p class="hint" id="field-reason-hint">
              Required, at most {MAX_SUSPENSION_REASON_LENGTH} characters.
              {action === 'suspend' ? ' The project’s owner sees it.' : ''}
            </p>
            <p
              class={reason.length > MAX_SUSPENSION_REASON_LENGTH ? 'hint counter over' : 'hint counter'}
              id="field-reason-count"
            >
              {counterText(reason.length, MAX_SUSPENSION_REASON_LENGTH)}
            </p>
            {error ? (
              <p class="field-error" id="field-reason-error">
                {error}
              </p>
            ) : null}
          </div>
          <div class="actions">
            <button type="submit" class={action === 'suspend' ? 'danger' : undefined}>
              {verb} the project
            </button>
            <a href={props.back}>Cancel</a>
          </div>
        </form>
      </section>
    </Layout>
  );
}

/** The confirmation of an invitation's revocation. */
export function RevokeInvitationPage(props: { invitation: InvitationRecord }) {
  const ctx = usePage();
  const { invitation } = props;
  return (
    <Layout title="Revoke invitation">
      <section class="card narrow">
        <h1>Revoke the invitation of {invitation.email}?</h1>
        <p>
          Sent <Time at={invitation.createdAt} />
          {invitation.invitedBy ? ` by ${invitation.invitedBy}` : ''}, good until <Time at={invitation.expiresAt} />.
        </p>
        <Notice kind="error">
          Its code stops working at once: signing up with it is refused. This cannot be undone.
        </Notice>
        <form
          method="post"
          action={`${ctx.base}/operator/invitations/${encodeURIComponent(invitation.email)}/revoke`}
          class="actions"
        >
          <button type="submit" class="danger">
            Revoke the invitation
          </button>
          <a href={`${ctx.base}/operator`}>Cancel</a>
        </form>
      </section>
    </Layout>
  );
}
