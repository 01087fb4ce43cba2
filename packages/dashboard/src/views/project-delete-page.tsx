/** @jsxImportSource hono/jsx */
import type { ProjectObject } from '@tidings/core';
import { MAX_NAME_LENGTH } from '../limits.js';
import type { FormState } from './auth-pages.js';
import { Field, Notice, usePage } from './layout.js';
import { ProjectFrame } from './project-frame.js';

/** The confirmation of a project's deletion: its name, typed again. */
export function ProjectDeletePage(props: { project: ProjectObject; activeKeys: number; state: FormState }) {
  const ctx = usePage();
  const { project, state } = props;
  return (
    <ProjectFrame project={project} tab="settings" title="Delete project">
      <section class="card narrow">
        <h2>Delete {project.name}?</h2>
        {state.message ? <Notice kind="error">{state.message}</Notice> : null}
        <Notice kind="error">
          Deleting takes effect at once and cannot be undone: its {props.activeKeys} active{' '}
          {props.activeKeys === 1 ? 'key stops' : 'keys stop'} working (the next API request with one gets 401
          UNAUTHORIZED), its open streams close, and its keys, log of sends, attempts, connected browsers and usage are
          removed.
        </Notice>
        <form method="post" action={`${ctx.base}/projects/${project.id}/delete`} novalidate>
          <Field
            label="Type the project's name to confirm"
            name="name"
            autocomplete="off"
            hint={`The name is “${project.name}”.`}
            limit={MAX_NAME_LENGTH}
            value={state.values?.name}
            error={state.errors?.name}
          />
          <div class="actions">
            <button type="submit" class="danger">
              Delete the project
            </button>
            <a href={`${ctx.base}/projects/${project.id}/settings`}>Cancel</a>
          </div>
        </form>
      </section>
    </ProjectFrame>
  );
}
