/**
 * The gate every way into a project passes once it knows the project (docs/api.md#order-of-checks):
 * a suspended project is refused before anything is counted, then the request counts against its
 * limit scopes, all of them at once or none. The route of every API key, a send in process and a
 * connect token minted in process pass this one gate; only which scopes count differs.
 */

import type { ResolvedLimits } from '../options.js';
import type { LimitDecision, Limiter, LimitScope, ScopeState } from '../ports/limiter.js';
import type { ApiKeyRecord, ProjectRecord } from '../ports/records.js';
import type { AccountStore } from '../ports/store.js';
import type { RateLimitHeaderForm } from '../shared/limiter/rate-limit-headers.js';
import { rateLimitHeaders, retryAfterSeconds } from '../shared/limiter/rate-limit-headers.js';
import { TidingsError } from './errors.js';

/** What the gate needs from the instance. */
export interface ProjectGateDeps {
  limiter: Limiter;
  limits: ResolvedLimits;
  /** How the rate limit headers are written. */
  rateLimitHeaders: RateLimitHeaderForm;
}

/**
 * What a request counts against: `key`, its key, its project and its account (a request with an
 * API key); `project`, its project and its account (a send in process, which has no key); `none`,
 * nothing (a connect token minted in process by the application's own code).
 */
export type GateScopes =
  | { kind: 'key'; key: ApiKeyRecord }
  | { kind: 'project' }
  | { kind: 'none' }
  /** A read of an inbox with an API key: its project's inbox-read scope only (docs/api.md#limits). */
  | { kind: 'inbox-reads' };

/** Where the gate left a request: through, with the headers every answer must carry, or refused. */
export type GateOutcome =
  | { kind: 'passed'; headers: Record<string, string> }
  | { kind: 'refused'; error: TidingsError };

/** A suspended project is refused, before any limit is counted. */
export function suspensionGuard(project: ProjectRecord): TidingsError | null {
  return project.suspended ? new TidingsError('PROJECT_SUSPENDED', 'This project is suspended') : null;
}

/** The scopes a request counts against, in the order of docs/api.md#limits: key, project, account. */
export function limitScopes(limits: ResolvedLimits, project: ProjectRecord, scopes: GateScopes): LimitScope[] {
  if (scopes.kind === 'none') return [];
  const { windowMs } = limits;
  const group = `account:${project.accountId}`;
  if (scopes.kind === 'inbox-reads') {
    return [
      { name: 'inbox-reads', id: `inbox-reads:${project.id}`, group, limit: limits.inboxReadsPerProject, windowMs },
    ];
  }
  return [
    ...(scopes.kind === 'key'
      ? [{ name: 'key', id: `key:${scopes.key.id}`, group, limit: limits.perKey, windowMs }]
      : []),
    { name: 'project', id: `project:${project.id}`, group, limit: limits.perProject, windowMs },
    { name: 'account', id: group, group, limit: limits.perAccount, windowMs },
  ];
}

/** What each scope's limit is called in a refusal's detail. */
const SCOPE_WORDS: Record<string, string> = {
  key: 'this API key',
  project: 'this project (all its keys together)',
  account: 'this account (all its projects together)',
  ip: 'this IP address',
};

/** Which limits were full, for a 429's detail: `: the limit of this API key (60 per 60 s) is reached`. */
function fullScopesText(scopes: readonly ScopeState[]): string {
  const full = scopes.filter((scope) => scope.remaining <= 0);
  if (full.length === 0) return '';
  const named = full.map(
    (scope) => `${SCOPE_WORDS[scope.name] ?? scope.name} (${scope.limit} per ${Math.round(scope.windowMs / 1000)} s)`,
  );
  return `: the limit of ${named.join(' and of ')} ${full.length === 1 ? 'is' : 'are'} reached`;
}

/**
 * The answer to a refused decision: 429 with Retry-After and the RateLimit headers, or 503 with
 * Retry-After when the limiter could not decide (its shared counts are out of reach).
 */
export function rateLimited(
  decision: Extract<LimitDecision, { allowed: false }>,
  form: RateLimitHeaderForm,
  now: number,
): TidingsError {
  const seconds = retryAfterSeconds(decision.retryAfterMs);
  if (decision.unavailable) {
    return new TidingsError('SERVICE_UNAVAILABLE', `Rate limits cannot be checked now; retry after ${seconds} s`, {
      headers: { 'Retry-After': String(seconds) },
    });
  }
  return new TidingsError(
    'RATE_LIMITED',
    `Too many requests${fullScopesText(decision.scopes)}; retry after ${seconds} s`,
    {
      headers: { 'Retry-After': String(seconds), ...rateLimitHeaders(decision.scopes, form, now) },
    },
  );
}

/** Passes a request to `project` through the gate: the suspension, then its scopes, counted at once. */
export async function passProjectGate(
  deps: ProjectGateDeps,
  project: ProjectRecord,
  scopes: GateScopes,
  now: number,
): Promise<GateOutcome> {
  const suspended = suspensionGuard(project);
  if (suspended) return { kind: 'refused', error: suspended };
  const counted = limitScopes(deps.limits, project, scopes);
  if (counted.length === 0) return { kind: 'passed', headers: {} };
  const decision = await deps.limiter.consume(counted, now);
  if (!decision.allowed) return { kind: 'refused', error: rateLimited(decision, deps.rateLimitHeaders, now) };
  return { kind: 'passed', headers: rateLimitHeaders(decision.scopes, deps.rateLimitHeaders, now) };
}

/** {@link passProjectGate} for a caller that throws a refusal; resolves with the headers of a pass. */
export async function throughProjectGate(
  deps: ProjectGateDeps,
  project: ProjectRecord,
  scopes: GateScopes,
  now: number,
): Promise<Record<string, string>> {
  const outcome = await passProjectGate(deps, project, scopes, now);
  if (outcome.kind === 'refused') throw outcome.error;
  return outcome.headers;
}

/**
 * The project a request of the application's own code names: by id (NOT_FOUND when there is none),
 * else the one the instance names (`createTidings({ project })`), made at its first use.
 */
export async function namedProject(
  store: Pick<AccountStore, 'getProject'>,
  projectId: string | undefined,
  appProject: (() => Promise<ProjectRecord>) | null,
  otherwise: string,
): Promise<ProjectRecord> {
  if (projectId !== undefined) {
    if (typeof projectId !== 'string') throw new TypeError('projectId must be a project id');
    const project = await store.getProject(projectId);
    if (!project) throw new TidingsError('NOT_FOUND', `No project with id ${projectId}`);
    return project;
  }
  if (appProject === null) throw new TypeError(otherwise);
  return appProject();
}
