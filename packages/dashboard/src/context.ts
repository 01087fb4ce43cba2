import { type ProjectObject, resolveClientIp, type Tidings, TidingsError } from '@tidings/core';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AccountService } from './domain/accounts.js';
import { type AuditEntry, recordAudit } from './domain/audit.js';
import type { Sessions, SignedIn } from './domain/sessions.js';
import { sessionCookieName } from './domain/sessions.js';
import type { ResolvedDashboardOptions } from './options.js';
import { formatTime, type PageContext } from './views/layout.js';

/** What the routes share: the options, the account rules, the sessions. */
export interface Deps {
  options: ResolvedDashboardOptions;
  tidings: Tidings;
  accounts: AccountService;
  sessions: Sessions;
}

/** The Hono environment of the dashboard's routes. */
export interface DashboardEnv {
  Variables: { signedIn: SignedIn | null };
}

/** The Hono context of a dashboard route. */
export type DashboardContext = Context<DashboardEnv>;

/** The client IP, as per-IP limits and the audit log see it. */
export function clientIp(c: Context, options: ResolvedDashboardOptions): string {
  return resolveClientIp({
    clientAddress: options.getClientAddress(c),
    forwardedFor: c.req.header('x-forwarded-for') ?? null,
    trustProxy: options.trustProxy,
  });
}

/** What the layout needs to know of the request. */
export function pageContext(c: DashboardContext, options: ResolvedDashboardOptions): PageContext {
  const signedIn = c.get('signedIn');
  return {
    base: options.basePath,
    email: signedIn?.account.account.email ?? null,
    operator: signedIn?.account.operator ?? false,
  };
}

/** The signed-in account; the routes behind sign-in run only after the middleware found one. */
export function signedInOf(c: DashboardContext): SignedIn {
  const signedIn = c.get('signedIn');
  if (!signedIn) throw new TidingsError('UNAUTHORIZED', 'Sign in first');
  return signedIn;
}

/** Reads the session cookie and resumes the session, if any. */
export async function loadSession(c: DashboardContext, deps: Deps): Promise<SignedIn | null> {
  const signedIn = await deps.sessions.resume(
    getCookie(c, sessionCookieName(deps.options.secureCookie)),
    deps.options.clock.now(),
  );
  c.set('signedIn', signedIn);
  return signedIn;
}

/**
 * The project at `id` if the signed-in account owns it. Another account's project, or an unknown
 * one, is the same NOT_FOUND: nothing tells that another's exists.
 */
export async function ownedProject(deps: Deps, signedIn: SignedIn, id: string): Promise<ProjectObject> {
  const project = await deps.tidings.admin.getProject(id).catch((error: unknown) => {
    if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
    throw error;
  });
  if (!project || project.account_id !== signedIn.account.account.id) {
    throw new TidingsError('NOT_FOUND', project ? 'No such project' : await goneProject(deps, signedIn, id));
  }
  return project;
}

/**
 * Why there is no project at `id`: one this account deleted says so, with when and by whom (a
 * bookmark, the Back button after the deletion); any other is only "no such project".
 */
async function goneProject(deps: Deps, signedIn: SignedIn, id: string): Promise<string> {
  const entries = await deps.options.store.listAuditEvents({ projectId: id, limit: 50 });
  const deleted = entries.find((entry) => entry.action === 'project.deleted');
  const own = entries.some((entry) => entry.actorAccountId === signedIn.account.account.id);
  if (!deleted || !own) return 'No such project';
  const by = deleted.actorEmail ?? (deleted.actorName ? `the operator (${deleted.actorName})` : 'the operator');
  return `The project “${deleted.detail}” was deleted on ${formatTime(deleted.createdAt)} by ${by}; its keys, notifications and webhooks went with it.`;
}

/**
 * Records one entry in the audit log (a project's, or none for an account or an invitation), as
 * the signed-in account, from the request's IP.
 */
export async function audit(c: Context, deps: Deps, signedIn: SignedIn, entry: AuditEntry): Promise<void> {
  const actor = signedIn.account.account;
  await recordAudit(
    deps.options.store,
    deps.options.clock.now(),
    { source: 'dashboard', accountId: actor.id, email: actor.email, ip: clientIp(c, deps.options) },
    entry,
  );
}
