/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { audit, type DashboardContext, type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { auditEntryOf } from '../domain/audit-policy.js';
import { parseForm, projectDeleteBodySchema } from '../forms.js';
import { render, seeOther } from '../render.js';
import type { FormState } from '../views/auth-pages.js';
import { ProjectDeletePage } from '../views/project-delete-page.js';

/**
 * A project's deletion: a confirmation page that asks for its name, then `tidings.admin.deleteProject`
 * (everything the project holds goes at once; its keys answer 401 from then on). The audit log
 * keeps its entries and a last one, `project.deleted`.
 */
export function registerProjectDeleteRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options, tidings } = deps;
  const base = options.basePath;

  async function confirmPage(c: DashboardContext, state: FormState, status: ContentfulStatusCode = 200) {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id') ?? '');
    const keys = await tidings.admin.listKeys(project.id);
    const activeKeys = keys.filter((key) => key.status === 'active').length;
    return render(c, <ProjectDeletePage project={project} activeKeys={activeKeys} state={state} />, status);
  }

  app.get('/projects/:id/delete', (c) => confirmPage(c, {}));
  app.post('/projects/:id/delete', async (c) => {
    const signedIn = signedInOf(c);
    const project = await ownedProject(deps, signedIn, c.req.param('id'));
    const form = parseForm(projectDeleteBodySchema, await c.req.parseBody());
    if (!form.ok) return confirmPage(c, form, 400);
    if (form.data.name.trim() !== project.name) {
      return confirmPage(
        c,
        {
          values: form.values,
          errors: { name: `This is not the project's name, “${project.name}”: nothing was deleted.` },
          message:
            'The name does not match, so nothing was deleted. Type the project’s name exactly as shown, then delete again.',
        },
        400,
      );
    }
    await tidings.admin.deleteProject(project.id);
    await audit(c, deps, signedIn, auditEntryOf('deleteProject', project));
    return seeOther(c, `${base}?deleted=1`);
  });
}
