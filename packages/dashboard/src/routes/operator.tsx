/** @jsxImportSource hono/jsx */
import { MAX_SEARCH_QUERY_LENGTH, type ProjectObject, TidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import { audit, type DashboardContext, type DashboardEnv, type Deps, signedInOf } from '../context.js';
import { auditEntryOf } from '../domain/audit-policy.js';
import { normaliseEmail } from '../domain/codes.js';
import { invitationBodySchema, parseForm, suspensionBodySchema } from '../forms.js';
import { tooLongMessage } from '../limits.js';
import { CHECK_THE_FIELDS } from '../refusals.js';
import { render, seeOther } from '../render.js';
import type { DashboardAccountStore } from '../store.js';
import type { FormState } from '../views/auth-pages.js';
import { OperatorPage, type OperatorQuery, RevokeInvitationPage, SuspensionPage } from '../views/operator-page.js';

/** Accounts and projects per page of the operators' lists. */
export const OPERATOR_PAGE_SIZE = 50;
const MAX_PAGE = 20_000;

const NOTICES: Record<string, string> = {
  suspended: 'The project is suspended: its requests and streams are refused from now on.',
  resumed: 'The project is resumed.',
  verified: 'The account is verified.',
  invited: 'The invitation is on its way.',
  invitation_revoked: 'The invitation is revoked: its code no longer works.',
};

function invalid(path: string, message: string): TidingsError {
  return new TidingsError('VALIDATION_FAILED', message, { errors: [{ path, message }] });
}

/**
 * The search and the pages the query asks for; a bad page number is VALIDATION_FAILED (400). A
 * search text over its limit is the form's own mistake: the page says so beside the field.
 */
function operatorQueryOf(c: DashboardContext): OperatorQuery & { tooLong: boolean } {
  const q = (c.req.query('q') ?? '').trim();
  const page = (name: string) => {
    const value = c.req.query(name);
    if (value === undefined || value === '') return 1;
    const number = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
    if (!(number >= 1 && number <= MAX_PAGE))
      throw invalid(name, `${name} must be a whole number from 1 to ${MAX_PAGE}`);
    return number;
  };
  return {
    q,
    projectsPage: page('projects_page'),
    accountsPage: page('accounts_page'),
    tooLong: q.length > MAX_SEARCH_QUERY_LENGTH,
  };
}

/** The operators' page: accounts and projects (searched, by pages), suspension, verification, invitations. */
export function registerOperatorRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options, tidings, accounts } = deps;
  const store: DashboardAccountStore = options.store;
  const base = options.basePath;

  /** Operators only; anyone else gets the NOT_FOUND a page that does not exist would give. */
  function operatorOf(c: DashboardContext) {
    const signedIn = signedInOf(c);
    if (!signedIn.account.operator) throw new TidingsError('NOT_FOUND', 'No such page');
    return signedIn;
  }

  async function page(c: DashboardContext, state: FormState, status: 200 | 400 = 200) {
    operatorOf(c);
    const { tooLong: searchTooLong, ...query } = operatorQueryOf(c);
    if (searchTooLong) {
      // Nothing is searched: the page keeps the text typed and says how long it is.
      const error = tooLongMessage(query.q.length, MAX_SEARCH_QUERY_LENGTH);
      const refused = {
        values: { q: query.q },
        errors: { q: error },
        message: 'The search text is too long, so nothing was searched. Shorten it, then search again.',
      };
      return render(
        c,
        <OperatorPage
          query={query}
          projects={[]}
          projectsTotal={0}
          accounts={[]}
          accountsTotal={0}
          pageSize={OPERATOR_PAGE_SIZE}
          invitations={await accounts.pendingInvitations()}
          signup={options.signup}
          secretsSealed={tidings.admin.settings.secretsSealed}
          state={refused}
        />,
        400,
      );
    }
    const search = query.q === '' ? null : query.q;
    const [projects, found, invitations] = await Promise.all([
      tidings.admin.searchProjects({
        query: query.q,
        offset: (query.projectsPage - 1) * OPERATOR_PAGE_SIZE,
        limit: OPERATOR_PAGE_SIZE,
      }),
      store.searchAccounts({
        query: search,
        offset: (query.accountsPage - 1) * OPERATOR_PAGE_SIZE,
        limit: OPERATOR_PAGE_SIZE,
      }),
      accounts.pendingInvitations(),
    ]);
    return render(
      c,
      <OperatorPage
        query={query}
        projects={projects.projects}
        projectsTotal={projects.total}
        accounts={found.accounts}
        accountsTotal={found.total}
        pageSize={OPERATOR_PAGE_SIZE}
        invitations={invitations}
        signup={options.signup}
        secretsSealed={tidings.admin.settings.secretsSealed}
        state={state}
      />,
      status,
    );
  }

  app.get('/operator', (c) => {
    const done = Object.keys(NOTICES).find((name) => c.req.query(name) === '1');
    return page(c, done ? { notice: NOTICES[done]! } : {});
  });

  /** Where a confirmation leads back to: a page of the operators' list, else its first page. */
  function backOf(value: unknown): string {
    const root = `${base}/operator`;
    // Only this page, and only printable ASCII (what operatorUrl makes): never another site, never a header break.
    return typeof value === 'string' && /^[\x21-\x7e]*$/.test(value) && (value === root || value.startsWith(`${root}?`))
      ? value
      : root;
  }

  async function projectOf(id: string): Promise<{ project: ProjectObject; accountEmail: string }> {
    const project = await tidings.admin.getProject(id);
    const account = await tidings.admin.getAccount(project.account_id);
    return { project, accountEmail: account.email };
  }

  for (const action of ['suspend', 'resume'] as const) {
    const path = `/operator/projects/:id/${action}`;
    // Already in the state asked for: nothing to confirm, nothing to record.
    const done = (project: ProjectObject) => project.suspended === (action === 'suspend');

    app.get(path, async (c) => {
      operatorOf(c);
      const { project, accountEmail } = await projectOf(c.req.param('id') ?? '');
      const back = backOf(c.req.query('back'));
      if (done(project)) return seeOther(c, back);
      return render(
        c,
        <SuspensionPage project={project} accountEmail={accountEmail} action={action} back={back} state={{}} />,
      );
    });

    app.post(path, async (c) => {
      const signedIn = operatorOf(c);
      const { project, accountEmail } = await projectOf(c.req.param('id') ?? '');
      const body = await c.req.parseBody();
      const back = backOf(body.back);
      const form = parseForm(suspensionBodySchema, body);
      if (!form.ok) {
        const reason = (form.errors.reason ?? 'The reason is not valid').replace(/\.$/, '');
        const state = { ...form, message: `${reason}. ${CHECK_THE_FIELDS}` };
        return render(
          c,
          <SuspensionPage project={project} accountEmail={accountEmail} action={action} back={back} state={state} />,
          400,
        );
      }
      if (done(project)) return seeOther(c, back);
      const change = { reason: form.data.reason, actor: signedIn.account.account.email };
      const changed =
        action === 'suspend'
          ? await tidings.admin.suspendProject(project.id, change)
          : await tidings.admin.resumeProject(project.id, change);
      const entry = auditEntryOf(action === 'suspend' ? 'suspendProject' : 'resumeProject', changed, form.data.reason);
      await audit(c, deps, signedIn, entry);
      const notice = action === 'suspend' ? 'suspended=1' : 'resumed=1';
      return seeOther(c, `${back}${back.includes('?') ? '&' : '?'}${notice}`);
    });
  }

  app.post('/operator/accounts/:id/verify', async (c) => {
    const signedIn = operatorOf(c);
    const account = await tidings.admin.getAccount(c.req.param('id'));
    if (!account.verified) {
      const verified = await tidings.admin.verifyAccount(account.id);
      await audit(c, deps, signedIn, auditEntryOf('verifyAccount', verified));
    }
    return seeOther(c, `${base}/operator?verified=1`);
  });

  app.post('/operator/invitations', async (c) => {
    const signedIn = operatorOf(c);
    const form = parseForm(invitationBodySchema, await c.req.parseBody());
    if (!form.ok) return page(c, form, 400);
    const origin = options.publicUrl ?? new URL(c.req.url).origin;
    await accounts.invite(form.data.email, `${origin}${base}/signup`, signedIn.account.account.email);
    await audit(c, deps, signedIn, auditEntryOf('sendInvitation', { email: form.data.email }));
    return seeOther(c, `${base}/operator?invited=1`);
  });

  /** The pending invitation of the address in the path; NOT_FOUND when it has none that works. */
  async function invitationOf(c: DashboardContext) {
    const email = normaliseEmail(c.req.param('email') ?? '');
    const invitation = await accounts.pendingInvitation(email);
    if (!invitation) throw new TidingsError('NOT_FOUND', `No pending invitation for ${email}`);
    return invitation;
  }

  app.get('/operator/invitations/:email/revoke', async (c) => {
    operatorOf(c);
    return render(c, <RevokeInvitationPage invitation={await invitationOf(c)} />);
  });
  app.post('/operator/invitations/:email/revoke', async (c) => {
    const signedIn = operatorOf(c);
    const invitation = await invitationOf(c);
    if (!(await accounts.revokeInvitation(invitation.email))) {
      throw new TidingsError('NOT_FOUND', `No pending invitation for ${invitation.email}`);
    }
    await audit(c, deps, signedIn, auditEntryOf('revokeInvitation', { email: invitation.email }));
    return seeOther(c, `${base}/operator?invitation_revoked=1`);
  });
}
