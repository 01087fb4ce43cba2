/** @jsxImportSource hono/jsx */
import type { ProjectObject } from '@tidings/core';
import { MAX_NAME_LENGTH } from '../limits.js';
import type { FormState } from './auth-pages.js';
import { Field, Notice, Time, usePage } from './layout.js';
import { ProjectFrame } from './project-frame.js';

/** A project's settings: its id, renaming it, and how long its recipients' inbox items are kept. */
export function SettingsPage(props: { project: ProjectObject; state: FormState; inboxRetentionDays: number }) {
  const ctx = usePage();
  const { project, state } = props;
  return (
    <ProjectFrame project={project} tab="settings" title="Settings">
      {state.notice ? <Notice kind="success">{state.notice}</Notice> : null}
      <h2>Settings</h2>
      <dl class="facts">
        <dt>Project id</dt>
        <dd>
          <code>{project.id}</code>
        </dd>
        <dt>Created</dt>
        <dd>
          <Time at={project.created_at} />
        </dd>
        <dt>Status</dt>
        <dd>{project.suspended ? 'suspended' : 'active'}</dd>
      </dl>
      <section class="card">
        <h2>Rename</h2>
        <form method="post" action={`${ctx.base}/projects/${project.id}/rename`} class="row-form" novalidate>
          <Field
            label="Project name"
            name="name"
            limit={MAX_NAME_LENGTH}
            value={state.values?.name ?? project.name}
            error={state.errors?.name}
          />
          <button type="submit">Rename</button>
        </form>
      </section>
      <section class="card">
        <h2>Inbox</h2>
        <p>
          Each recipient’s inbox keeps the live notifications they were sent for this many days; older items leave the
          inbox and its counts (the notifications stay in the log).
        </p>
        <form method="post" action={`${ctx.base}/projects/${project.id}/inbox-retention`} class="row-form" novalidate>
          <Field
            label="Days kept"
            name="days"
            inputmode="numeric"
            value={state.values?.days ?? String(props.inboxRetentionDays)}
            error={state.errors?.days}
          />
          <button type="submit">Save</button>
        </form>
      </section>
      <section class="card">
        <h2>Delete</h2>
        <p>Deleting the project removes it with its keys, log of sends and usage, at once and for good.</p>
        <a href={`${ctx.base}/projects/${project.id}/delete`} class="danger-link">
          Delete this project
        </a>
      </section>
    </ProjectFrame>
  );
}
