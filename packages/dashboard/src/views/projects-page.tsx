/** @jsxImportSource hono/jsx */
import type { ProjectObject } from '@tidings/core';
import { MAX_NAME_LENGTH } from '../limits.js';
import type { FormState } from './auth-pages.js';
import { Field, Layout, Notice, Time, usePage } from './layout.js';

/** The account's projects (n/limit), and the form to create one, or why it cannot. */
export function ProjectsPage(props: { projects: ProjectObject[]; limit: number; verified: boolean; state: FormState }) {
  const ctx = usePage();
  const { projects, state } = props;
  return (
    <Layout title="Projects">
      <h1>Projects</h1>
      {state.message ? <Notice kind="error">{state.message}</Notice> : null}
      {state.notice ? <Notice kind="success">{state.notice}</Notice> : null}
      <p class="count">
        {projects.length}/{props.limit} projects
      </p>
      {projects.length === 0 ? (
        <p class="empty">No projects yet.</p>
      ) : (
        <ul class="project-list">
          {projects.map((project) => (
            <li>
              <a href={`${ctx.base}/projects/${project.id}`}>{project.name}</a>
              {project.suspended ? <span class="badge danger">suspended</span> : null}
              <span class="muted">
                <code>{project.id}</code> · created <Time at={project.created_at} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <section class="card">
        <h2>New project</h2>
        {!props.verified ? (
          <Notice kind="info">
            Creating a project needs a verified email address. <a href={`${ctx.base}/verify`}>Verify your email</a> with
            the 6-digit code we sent you.
          </Notice>
        ) : projects.length >= props.limit ? (
          <Notice kind="info">
            This account holds {props.limit} projects, the most it may. Ask an operator if you need another.
          </Notice>
        ) : (
          <form method="post" action={`${ctx.base}/projects`} class="row-form" novalidate>
            <Field
              label="Project name"
              name="name"
              limit={MAX_NAME_LENGTH}
              value={state.values?.name}
              error={state.errors?.name}
            />
            <button type="submit">Create project</button>
          </form>
        )}
      </section>
    </Layout>
  );
}
