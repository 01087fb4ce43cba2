/** @jsxImportSource hono/jsx */
import type { DeletedProject } from '../context.js';
import { Layout, Notice, Time, usePage } from './layout.js';

/**
 * What a deleted project's pages show its account (a bookmark, Back after the deletion): that
 * it was deleted, when and by whom, instead of a bare "not found".
 */
export function ProjectDeletedPage(props: { deleted: DeletedProject }) {
  const ctx = usePage();
  const { deleted } = props;
  return (
    <Layout title="Project deleted">
      <section class="card narrow">
        <h1>This project was deleted</h1>
        <Notice kind="info">
          <p data-code="PROJECT_DELETED">
            The project <strong>{deleted.name}</strong> was deleted on <Time at={deleted.deletedAt} /> by {deleted.by}.
            Its keys, notifications and webhooks went with it, and its keys no longer work. A deletion cannot be undone.
          </p>
        </Notice>
        <p class="muted">
          Project <code>{deleted.id}</code>
        </p>
        <p>
          <a href={ctx.base}>Back to your projects</a>
        </p>
      </section>
    </Layout>
  );
}
