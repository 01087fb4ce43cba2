/** @jsxImportSource hono/jsx */
import { TidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { audit, type DashboardContext, type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { auditEntryOf } from '../domain/audit-policy.js';
import { inboxRetentionBodySchema, keyBodySchema, parseForm, projectBodySchema } from '../forms.js';
import { refusalMessage } from '../refusals.js';
import { render, seeOther } from '../render.js';
import type { FormState } from '../views/auth-pages.js';
import { KeyCreatedPage, KeysPage, RevokePage } from '../views/keys-pages.js';
import { ProjectsPage } from '../views/projects-page.js';
import { SettingsPage } from '../views/settings-page.js';
import { apiUrlOf, firstSendRecipient } from './first-send.js';

/** The page's message for a refusal of the admin API, and its HTTP status. */
function refusal(error: unknown): { message: string; status: ContentfulStatusCode } {
  if (!(error instanceof TidingsError)) throw error;
  return { message: refusalMessage(error), status: error.status as ContentfulStatusCode };
}

const NOTICES: Record<string, string> = {
  verified: 'Your email address is verified. You can create projects now.',
  revoked: 'The key is revoked. The next request with it gets 401.',
  renamed: 'The project is renamed.',
  retention: 'The inbox retention is saved. Older items leave the inbox at the next sweep.',
  deleted: 'The project is deleted with all it held. Its keys no longer work.',
};

function noticeOf(query: Record<string, string>): FormState {
  for (const [name, text] of Object.entries(NOTICES)) if (query[name] === '1') return { notice: text };
  return {};
}

/** The projects list and creation, a project's keys (create, revoke) and its settings (rename). */
export function registerProjectRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options, tidings } = deps;
  const base = options.basePath;

  async function projectsPage(c: DashboardContext, state: FormState, status: ContentfulStatusCode = 200) {
    const signedIn = signedInOf(c);
    const projects = await tidings.admin.listProjects(signedIn.account.account.id);
    // The account as it is now: verification may have happened in another tab.
    const account = await tidings.admin.getAccount(signedIn.account.account.id);
    return render(
      c,
      <ProjectsPage
        projects={projects}
        limit={options.maxProjectsPerAccount}
        verified={account.verified}
        state={state}
      />,
      status,
    );
  }

  app.get('/', (c) => projectsPage(c, noticeOf(c.req.query())));
  app.post('/projects', async (c) => {
    const signedIn = signedInOf(c);
    const form = parseForm(projectBodySchema, await c.req.parseBody());
    if (!form.ok) return projectsPage(c, form, 400);
    try {
      const project = await tidings.admin.createProject({
        accountId: signedIn.account.account.id,
        name: form.data.name,
      });
      await audit(c, deps, signedIn, auditEntryOf('createProject', project));
      return seeOther(c, `${base}/projects/${project.id}`);
    } catch (error) {
      const { message, status } = refusal(error);
      return projectsPage(c, { values: form.values, message }, status);
    }
  });

  async function keysPage(c: DashboardContext, state: FormState, status: ContentfulStatusCode = 200) {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id') ?? '');
    const keys = await tidings.admin.listKeys(project.id);
    // Every project offers a test send, with a key to paste: open on an empty project (nothing
    // sent yet), folded on one that has sent.
    const empty = (await tidings.admin.listNotifications(project.id, { limit: 1 })).length === 0;
    const firstSend = {
      project,
      recipient: firstSendRecipient(signedInOf(c).account.account.id),
      apiUrl: apiUrlOf(c, deps),
      source: { from: 'paste' as const, activeKeys: keys.filter((key) => key.revoked_at === null).length },
      collapsed: !empty,
    };
    return render(
      c,
      <KeysPage
        project={project}
        keys={keys}
        limit={options.maxActiveKeysPerProject}
        state={state}
        firstSend={firstSend}
      />,
      status,
    );
  }

  app.get('/projects/:id', (c) => keysPage(c, noticeOf(c.req.query())));
  app.post('/projects/:id/keys', async (c) => {
    const signedIn = signedInOf(c);
    const project = await ownedProject(deps, signedIn, c.req.param('id'));
    const form = parseForm(keyBodySchema, await c.req.parseBody());
    if (!form.ok) return keysPage(c, form, 400);
    if (project.suspended) {
      return keysPage(
        c,
        {
          values: form.values,
          message: 'This project is suspended, so it takes no new keys. Ask an operator to resume it.',
        },
        403,
      );
    }
    try {
      const created = await tidings.admin.createKey({
        projectId: project.id,
        mode: form.data.mode,
        ...(form.data.name ? { name: form.data.name } : {}),
      });
      // The full value goes to the page once, apart from the key's record.
      const { key: fullKey, ...key } = created;
      if (!fullKey) throw new Error('a created key came back without its value');
      await audit(c, deps, signedIn, auditEntryOf('createKey', key));
      // The key on screen sends the first test notification (docs/dashboard.md#the-first-send).
      const firstSend = {
        project,
        recipient: firstSendRecipient(signedIn.account.account.id),
        apiUrl: apiUrlOf(c, deps),
        source: { from: 'screen' as const, mode: key.mode },
      };
      return render(c, <KeyCreatedPage project={project} apiKey={key} fullKey={fullKey} firstSend={firstSend} />);
    } catch (error) {
      const { message, status } = refusal(error);
      return keysPage(c, { values: form.values, message }, status);
    }
  });

  async function ownedKey(c: DashboardContext) {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id') ?? '');
    const key = await tidings.admin.getKey(c.req.param('keyId') ?? '').catch((error: unknown) => {
      if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
      throw error;
    });
    if (!key || key.project_id !== project.id) throw new TidingsError('NOT_FOUND', 'No such key in this project');
    return { project, key };
  }

  app.get('/projects/:id/keys/:keyId/revoke', async (c) => {
    const { project, key } = await ownedKey(c);
    if (key.revoked_at !== null) return seeOther(c, `${base}/projects/${project.id}`);
    return render(c, <RevokePage project={project} apiKey={key} />);
  });
  app.post('/projects/:id/keys/:keyId/revoke', async (c) => {
    const signedIn = signedInOf(c);
    const { project, key } = await ownedKey(c);
    if (key.revoked_at === null) {
      const revoked = await tidings.admin.revokeKey(key.id);
      await audit(c, deps, signedIn, auditEntryOf('revokeKey', revoked));
    }
    return seeOther(c, `${base}/projects/${project.id}?revoked=1`);
  });

  app.get('/projects/:id/settings', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const inboxRetentionDays = await tidings.admin.getInboxRetention(project.id);
    return render(
      c,
      <SettingsPage project={project} state={noticeOf(c.req.query())} inboxRetentionDays={inboxRetentionDays} />,
    );
  });
  app.post('/projects/:id/inbox-retention', async (c) => {
    const signedIn = signedInOf(c);
    const project = await ownedProject(deps, signedIn, c.req.param('id'));
    const form = parseForm(inboxRetentionBodySchema, await c.req.parseBody());
    if (!form.ok) {
      const inboxRetentionDays = await tidings.admin.getInboxRetention(project.id);
      return render(c, <SettingsPage project={project} state={form} inboxRetentionDays={inboxRetentionDays} />, 400);
    }
    const days = await tidings.admin.setInboxRetention(project.id, form.data.days);
    await audit(c, deps, signedIn, auditEntryOf('setInboxRetention', { projectId: project.id, days }));
    return seeOther(c, `${base}/projects/${project.id}/settings?retention=1`);
  });
  app.post('/projects/:id/rename', async (c) => {
    const signedIn = signedInOf(c);
    const project = await ownedProject(deps, signedIn, c.req.param('id'));
    const form = parseForm(projectBodySchema, await c.req.parseBody());
    if (!form.ok) {
      const inboxRetentionDays = await tidings.admin.getInboxRetention(project.id);
      return render(c, <SettingsPage project={project} state={form} inboxRetentionDays={inboxRetentionDays} />, 400);
    }
    const renamed = await tidings.admin.renameProject(project.id, form.data.name);
    await audit(c, deps, signedIn, auditEntryOf('renameProject', { before: project, after: renamed }));
    return seeOther(c, `${base}/projects/${project.id}/settings?renamed=1`);
  });
}
