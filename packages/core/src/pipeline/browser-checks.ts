/**
 * The order of checks for the browser endpoints (docs/api.md#order-of-checks): resolve the credential
 * by its hash; a suspended project → 403 with nothing counted; then the endpoint's per-IP limit
 * (429); then an unresolved credential → 401.
 */

import type { ResolvedLimits } from '../options.js';
import type { Limiter, LimitScope } from '../ports/limiter.js';
import type { BrowserLookup, ConnectTokenLookup, ProjectRecord } from '../ports/records.js';
import type { BrowserStore } from '../ports/store.js';
import type { RateLimitHeaderForm } from '../shared/limiter/rate-limit-headers.js';
import { hashSecret, isWellFormedConnectToken } from '../shared/secrets.js';
import { timingSafeEqualHex } from '../shared/timing-safe.js';
import { TidingsError } from './errors.js';
import { rateLimited, suspensionGuard } from './project-gate.js';

/** The per-IP limit a browser endpoint counts against. */
export type BrowserEndpointScope = 'connect' | 'events';

/** What the browser checks need from the instance. */
export interface BrowserCheckDeps {
  store: BrowserStore;
  limiter: Limiter;
  limits: ResolvedLimits;
  /** How the rate limit headers of a 429 are written. */
  rateLimitHeaders: RateLimitHeaderForm;
}

/** The per-IP scope of a browser endpoint; events and disconnect share one. */
export function browserEndpointScope(
  limits: ResolvedLimits,
  scope: BrowserEndpointScope,
  clientIpKey: string,
): LimitScope {
  const limit = scope === 'connect' ? limits.connectPerIp : limits.eventsPerIp;
  return { name: 'ip', id: `ip-${scope}:${clientIpKey}`, limit, windowMs: limits.windowMs };
}

/** Runs the common sequence once the credential is resolved (or not). */
async function admit<T extends { project: ProjectRecord }>(
  deps: BrowserCheckDeps,
  resolved: T | null,
  scope: BrowserEndpointScope,
  clientIpKey: string,
  now: number,
  unauthorized: string,
): Promise<T> {
  const suspended = resolved ? suspensionGuard(resolved.project) : null;
  if (suspended) throw suspended;
  const decision = await deps.limiter.consume([browserEndpointScope(deps.limits, scope, clientIpKey)], now);
  if (!decision.allowed) throw rateLimited(decision, deps.rateLimitHeaders, now);
  if (!resolved) throw new TidingsError('UNAUTHORIZED', unauthorized);
  return resolved;
}

/** Checks a connect token from the path; returns its lookup or throws the refusal. */
export async function checkConnectToken(
  deps: BrowserCheckDeps,
  input: { token: string; clientIpKey: string; now: number },
): Promise<ConnectTokenLookup> {
  const found = isWellFormedConnectToken(input.token)
    ? await deps.store.findConnectToken(hashSecret(input.token))
    : null;
  const resolved = found && found.expiresAt > input.now ? found : null;
  return admit(deps, resolved, 'connect', input.clientIpKey, input.now, 'The connect token is unknown or expired');
}

/** Checks a browser's id and secret; returns its lookup or throws the refusal. */
export async function checkBrowserSecret(
  deps: BrowserCheckDeps,
  input: { browserId: unknown; secret: unknown; clientIpKey: string; now: number },
): Promise<BrowserLookup> {
  const resolved = await resolveBrowser(deps.store, input.browserId, input.secret);
  return admit(deps, resolved, 'events', input.clientIpKey, input.now, 'The browser id or secret is not valid');
}

/** The browser whose secret matches, or null: the secret is compared by hash, in constant time. */
export async function resolveBrowser(
  store: BrowserStore,
  browserId: unknown,
  secret: unknown,
): Promise<BrowserLookup | null> {
  if (typeof browserId !== 'string' || typeof secret !== 'string' || !/^brw_[0-9a-z]{26}$/.test(browserId)) {
    return null;
  }
  const found = await store.findBrowser(browserId);
  return found && timingSafeEqualHex(found.browser.secretHash, hashSecret(secret)) ? found : null;
}
