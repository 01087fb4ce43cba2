/**
 * The order of checks for every request that carries an API key (docs/api.md#order-of-checks), as
 * one explicit sequence. Each step is a small function; `runApiKeyChecks` is the only place
 * that decides their order, and its test pins it step by step.
 */

import type { ResolvedLimits } from '../options.js';
import type { Limiter, LimitScope } from '../ports/limiter.js';
import type { ApiKeyLookup, ApiKeyRecord, ProjectRecord } from '../ports/records.js';
import type { ApiKeyStore } from '../ports/store.js';
import type { RateLimitHeaderForm } from '../shared/limiter/rate-limit-headers.js';
import { hashSecret, isWellFormedApiKey } from '../shared/secrets.js';
import { TidingsError } from './errors.js';
import { passProjectGate, rateLimited } from './project-gate.js';

/** What the checks need from the instance. */
export interface ApiKeyCheckDeps {
  store: ApiKeyStore;
  limiter: Limiter;
  limits: ResolvedLimits;
  /** The key's last-used time is written at most this often. */
  lastUsedIntervalMs: number;
  /** How the rate limit headers are written. */
  rateLimitHeaders: RateLimitHeaderForm;
}

/** What the checks read from one request. */
export interface ApiKeyCheckInput {
  authorization: string | null;
  origin: string | null;
  /** Step 1, done by the caller: the client IP already grouped for limits (IPv6 by /64). */
  clientIpKey: string;
  now: number;
  /**
   * What the request counts against: its key, project and account (`requests`, the default), or
   * its project's scope of inbox reads (`inbox-reads`).
   */
  counts?: 'requests' | 'inbox-reads';
}

/** The outcome: an authenticated key with the headers every answer must carry, or a refusal. */
export type ApiKeyCheckOutcome =
  | { kind: 'authenticated'; key: ApiKeyRecord; project: ProjectRecord; headers: Record<string, string> }
  | {
      kind: 'refused';
      error: TidingsError;
      /** The key the request presented and its project, when the key is known (revoked ones too). */
      found: ApiKeyLookup | null;
    };

const BEARER = /^Bearer +([^\s]+) *$/i;

/** Step 2: the presented key, if the header is `Bearer <well-formed key>`; no lookup happens otherwise. */
export function presentedApiKey(authorization: string | null): string | null {
  const match = authorization === null ? null : BEARER.exec(authorization);
  const value = match?.[1];
  return value !== undefined && isWellFormedApiKey(value) ? value : null;
}

/** Step 3: the key and its project, when the key is known and not revoked. */
export async function findActiveKey(store: ApiKeyStore, presented: string): Promise<ApiKeyLookup | null> {
  return activeOnly(await store.findApiKeyByHash(hashSecret(presented)));
}

function activeOnly(found: ApiKeyLookup | null): ApiKeyLookup | null {
  return found && found.key.revokedAt === null ? found : null;
}

/** The per-IP scope of requests with a missing or invalid key. */
export function invalidKeyScope(limits: ResolvedLimits, clientIpKey: string): LimitScope {
  return { name: 'ip', id: `ip-invalid:${clientIpKey}`, limit: limits.invalidKeyPerIp, windowMs: limits.windowMs };
}

/**
 * Step 4: an invalid key counts against its IP: 401, or 429 once the IP is over its limit. A key
 * that was revoked is told apart from a typo in the problem's detail (its holder learns nothing
 * new: they hold the key), so that its owner replaces it instead of hunting for a typo.
 */
export async function refuseInvalidKey(
  deps: ApiKeyCheckDeps,
  input: ApiKeyCheckInput,
  revoked: ApiKeyRecord | null = null,
): Promise<TidingsError> {
  const decision = await deps.limiter.consume([invalidKeyScope(deps.limits, input.clientIpKey)], input.now);
  if (!decision.allowed) return rateLimited(decision, deps.rateLimitHeaders, input.now);
  const detail =
    revoked?.revokedAt != null
      ? `This API key (${revoked.prefix}…) was revoked at ${new Date(revoked.revokedAt).toISOString()}: create a new key and use it instead`
      : 'Send a valid API key as Authorization: Bearer sk_live_… or sk_test_…';
  return new TidingsError('UNAUTHORIZED', detail, {
    headers: { 'WWW-Authenticate': 'Bearer realm="tidings"' },
  });
}

/** Step 5: a live key is never accepted from a browser (a request with an Origin header). */
export function browserGuard(key: ApiKeyRecord, origin: string | null): TidingsError | null {
  if (key.mode !== 'live' || origin === null) return null;
  return new TidingsError(
    'FORBIDDEN',
    'Live keys must not be used from a browser; call Tidings from your server, or use a test key',
  );
}

/** Step 8: whether the last-used time is due for a write (at most once per interval). */
export function lastUsedIsDue(key: ApiKeyRecord, now: number, intervalMs: number): boolean {
  return key.lastUsedAt === null || now - key.lastUsedAt >= intervalMs;
}

/**
 * Runs steps 2 to 8 in order; 6 and 7 are the project's gate (project-gate.ts), which a send in
 * process passes too. Step 9, the endpoint's own work, follows in the route.
 */
export async function runApiKeyChecks(deps: ApiKeyCheckDeps, input: ApiKeyCheckInput): Promise<ApiKeyCheckOutcome> {
  const presented = presentedApiKey(input.authorization); // 2
  // A revoked key is as invalid as an unknown one; the refusal still names it, for the request log.
  const lookup = presented === null ? null : await deps.store.findApiKeyByHash(hashSecret(presented));
  const found = activeOnly(lookup); // 3
  if (found === null) {
    return { kind: 'refused', error: await refuseInvalidKey(deps, input, lookup?.key ?? null), found: lookup }; // 4
  }
  const { key, project } = found;
  const forbidden = browserGuard(key, input.origin); // 5
  if (forbidden) return { kind: 'refused', error: forbidden, found };
  // 6 and 7: the project's gate, the key's scope counted with its project's and account's.
  const scopes = input.counts === 'inbox-reads' ? { kind: 'inbox-reads' as const } : { kind: 'key' as const, key };
  const gate = await passProjectGate(deps, project, scopes, input.now);
  if (gate.kind === 'refused') return { kind: 'refused', error: gate.error, found };
  if (lastUsedIsDue(key, input.now, deps.lastUsedIntervalMs)) {
    await deps.store.touchApiKey({ id: key.id, now: input.now, minIntervalMs: deps.lastUsedIntervalMs }); // 8
  }
  return { kind: 'authenticated', key, project, headers: gate.headers };
}
