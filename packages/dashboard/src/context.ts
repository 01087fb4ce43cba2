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
    const deleted = project ? null : await deletedProject(deps, signedIn, id);
    throw deleted ? new ProjectDeletedError(deleted) : new TidingsError('NOT_FOUND', 'No such project');
  }
  return project;
}

/** What the audit log keeps of a deleted project: its name, when it went and who deleted it. */
export interface DeletedProject {
  id: string;
  name: string;
  deletedAt: number;
  /** The account's email, or the operator's name when the CLI deleted it. */
  by: string;
}

/**
 * A project of this account that was deleted. It is NOT_FOUND to a program (the first send's
 * JSON routes answer 404 as for an unknown one); the pages answer 410 Gone and say what happened.
 */
export class ProjectDeletedError extends TidingsError {
  readonly deleted: DeletedProject;
  constructor(deleted: DeletedProject) {
    super(
      'NOT_FOUND',
      `The project “${deleted.name}” was deleted on ${formatTime(deleted.deletedAt)} by ${deleted.by}; its keys, notifications and webhooks went with it.`,
    );
    this.name = 'ProjectDeletedError';
    this.deleted = deleted;
  }
}

/**
 * The record of a project this account deleted, read from the audit log, which keeps its entries
 * and a last one, `project.deleted` (a bookmark, the Back button after the deletion); null for
 * any other id, so that nothing tells another account's deleted project from an unknown one.
 */
async function deletedProject(deps: Deps, signedIn: SignedIn, id: string): Promise<DeletedProject | null> {
  const entries = await deps.options.store.listAuditEvents({ projectId: id, limit: 50 });
  const deleted = entries.find((entry) => entry.action === 'project.deleted');
  const own = entries.some((entry) => entry.actorAccountId === signedIn.account.account.id);
  if (!deleted || !own) return null;
  const by = deleted.actorEmail ?? (deleted.actorName ? `the operator (${deleted.actorName})` : 'the operator');
  return { id, name: deleted.detail, deletedAt: deleted.createdAt, by };
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
