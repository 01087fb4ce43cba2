/** @jsxImportSource hono/jsx */
import { TidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import { audit, type DashboardContext, type DashboardEnv, type Deps, signedInOf } from '../context.js';
import { invitationBodySchema, parseForm } from '../forms.js';
import { render, seeOther } from '../render.js';
import type { FormState } from '../views/auth-pages.js';
import { OperatorPage } from '../views/operator-page.js';

const NOTICES: Record<string, string> = {
  suspended: 'The project is suspended: its requests and streams are refused from now on.',
  resumed: 'The project is resumed.',
  verified: 'The account is verified.',
  invited: 'The invitation is on its way.',
};

/** The operators' page: every account and project, suspension, verification by hand, invitations. */
export function registerOperatorRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options, tidings, accounts } = deps;
  const { store } = options;
  const base = options.basePath;

  /** Operators only; anyone else gets the NOT_FOUND a page that does not exist would give. */
  function operatorOf(c: DashboardContext) {
    const signedIn = signedInOf(c);
    if (!signedIn.account.operator) throw new TidingsError('NOT_FOUND', 'No such page');
    return signedIn;
  }

  async function page(c: DashboardContext, state: FormState, status: 200 | 400 = 200) {
    operatorOf(c);
    const all = await tidings.admin.listAccounts();
    const operators = new Set(await store.listOperatorIds());
    return render(
      c,
      <OperatorPage
        accounts={all}
        operators={operators}
        projects={await tidings.admin.listAllProjects()}
        signup={options.signup}
        state={state}
      />,
      status,
    );
  }

  app.get('/operator', (c) => {
    const done = Object.keys(NOTICES).find((name) => c.req.query(name) === '1');
    return page(c, done ? { notice: NOTICES[done]! } : {});
  });

  for (const action of ['suspend', 'resume'] as const) {
    app.post(`/operator/projects/:id/${action}`, async (c) => {
      const signedIn = operatorOf(c);
      const project =
        action === 'suspend'
          ? await tidings.admin.suspendProject(c.req.param('id'))
          : await tidings.admin.resumeProject(c.req.param('id'));
      const done = action === 'suspend' ? 'project.suspended' : 'project.resumed';
      await audit(c, deps, signedIn, project.id, done, `${project.name} (operator)`);
      return seeOther(c, `${base}/operator?${action === 'suspend' ? 'suspended' : 'resumed'}=1`);
    });
  }

  app.post('/operator/accounts/:id/verify', async (c) => {
    operatorOf(c);
    await tidings.admin.verifyAccount(c.req.param('id'));
    return seeOther(c, `${base}/operator?verified=1`);
  });

  app.post('/operator/invitations', async (c) => {
    operatorOf(c);
    const form = parseForm(invitationBodySchema, await c.req.parseBody());
    if (!form.ok) return page(c, form, 400);
    const origin = options.publicUrl ?? new URL(c.req.url).origin;
    await accounts.invite(form.data.email, `${origin}${base}/signup`);
    return seeOther(c, `${base}/operator?invited=1`);
  });
}
