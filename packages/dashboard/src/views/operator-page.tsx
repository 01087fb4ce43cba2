/** @jsxImportSource hono/jsx */
import type { AccountObject, ProjectObject } from '@tidings/core';
import type { SignupPolicy } from '../options.js';
import type { FormState } from './auth-pages.js';
import { Field, Layout, Notice, Time, usePage } from './layout.js';

/** Every account and project; suspend and resume projects, verify accounts, invite people. */
export function OperatorPage(props: {
  accounts: AccountObject[];
  operators: Set<string>;
  projects: ProjectObject[];
  signup: SignupPolicy;
  state: FormState;
}) {
  const ctx = usePage();
  const { state } = props;
  const emailOf = new Map(props.accounts.map((account) => [account.id, account.email]));
  return (
    <Layout title="Operator" wide>
      <h1>Operator</h1>
      {state.message ? <Notice kind="error">{state.message}</Notice> : null}
      {state.notice ? <Notice kind="success">{state.notice}</Notice> : null}
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
      <h2>Projects ({props.projects.length})</h2>
      <section class="table-wrap" tabindex={0} aria-label="Every project">
        <table>
          <caption class="visually-hidden">Every project</caption>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Account</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.projects.map((project) => (
              <tr data-project-id={project.id}>
                <td>
                  {project.name} <code class="muted">{project.id}</code>
                </td>
                <td>{emailOf.get(project.account_id) ?? project.account_id}</td>
                <td>
                  <Time at={project.created_at} />
                </td>
                <td>
                  {project.suspended ? (
                    <span class="badge danger">suspended</span>
                  ) : (
                    <span class="badge ok">active</span>
                  )}
                </td>
                <td>
                  <form
                    method="post"
                    action={`${ctx.base}/operator/projects/${project.id}/${project.suspended ? 'resume' : 'suspend'}`}
                    class="inline"
                  >
                    <button type="submit" class={project.suspended ? 'secondary' : 'danger'}>
                      {project.suspended ? 'Resume' : 'Suspend'}
                      <span class="visually-hidden"> {project.name}</span>
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <h2>Accounts ({props.accounts.length})</h2>
      <section class="table-wrap" tabindex={0} aria-label="Every account">
        <table>
          <caption class="visually-hidden">Every account</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Created</th>
              <th scope="col">Email verified</th>
              <th scope="col">Role</th>
            </tr>
          </thead>
          <tbody>
            {props.accounts.map((account) => (
              <tr data-account-id={account.id}>
                <td>
                  {account.email} <code class="muted">{account.id}</code>
                </td>
                <td>
                  <Time at={account.created_at} />
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
                <td>{props.operators.has(account.id) ? 'operator' : 'customer'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </Layout>
  );
}
