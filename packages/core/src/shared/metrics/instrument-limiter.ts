import type { LimitDecision, Limiter, LimitScope } from '../../ports/limiter.js';
import type { Metrics } from '../../ports/metrics.js';

/** The per-IP scopes, told apart by the prefix of their ids (see browser-checks and api-key-checks). */
const IP_SCOPE_LABELS: Readonly<Record<string, string>> = {
  'ip-invalid': 'ip_invalid_key',
  'ip-connect': 'ip_connect',
  'ip-events': 'ip_events',
};

/**
 * The metric label of a scope: its name (`key`, `project`, `account`), or for a per-IP scope
 * the endpoint it limits (`ip_invalid_key`, `ip_connect`, `ip_events`). Never the identity
 * counted: no key id, project id or address reaches a label.
 */
export function limitScopeLabel(scope: LimitScope): string {
  if (scope.name !== 'ip') return scope.name;
  return IP_SCOPE_LABELS[scope.id.slice(0, scope.id.indexOf(':'))] ?? 'ip';
}

/**
 * Wraps a limiter so that each refusal is counted once, under the narrowest scope that was
 * full (scopes are given narrowest first: key, project, account). Any limiter is measured
 * without a change to it.
 */
export function instrumentLimiter(limiter: Limiter, metrics: Metrics): Limiter {
  return {
    async consume(scopes, now): Promise<LimitDecision> {
      const decision = await limiter.consume(scopes, now);
      if (!decision.allowed) metrics.limiterRefused(refusingScope(scopes, decision));
      return decision;
    },
    close: () => limiter.close(),
  };
}

function refusingScope(scopes: readonly LimitScope[], decision: LimitDecision): string {
  for (let i = 0; i < scopes.length; i++) {
    const scope = scopes[i]!;
    const state = decision.scopes.find((candidate) => candidate.name === scope.name) ?? decision.scopes[i];
    if (state !== undefined && state.remaining === 0) return limitScopeLabel(scope);
  }
  return scopes.length > 0 ? limitScopeLabel(scopes[0]!) : 'unknown';
}
