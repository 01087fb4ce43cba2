import { ipScopeKey, type Limiter, type LimitScope } from '@tidings/core';

/** What is counted: each kind has its own limits per client IP and per email address. */
export type ThrottleKind = 'sign-in' | 'code' | 'send-code' | 'sign-up';

const WINDOW_MS = 15 * 60_000;

/** Requests allowed per 15 minutes, per IP and per email. */
export const throttleLimits: Record<ThrottleKind, { perIp: number; perEmail: number }> = {
  'sign-in': { perIp: 30, perEmail: 10 },
  code: { perIp: 30, perEmail: 10 },
  'send-code': { perIp: 20, perEmail: 3 },
  'sign-up': { perIp: 10, perEmail: 3 },
};

/** Outcome of {@link throttle}: a refusal says when to try again, in whole seconds (at least 1). */
export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts one attempt of `kind` against the client IP and the email, both at once or neither. */
export async function throttle(
  limiter: Limiter,
  kind: ThrottleKind,
  input: { ip: string; email: string | null; now: number },
): Promise<ThrottleDecision> {
  const limits = throttleLimits[kind];
  const scopes: LimitScope[] = [
    { name: 'ip', id: `dashboard:${kind}:ip:${ipScopeKey(input.ip)}`, limit: limits.perIp, windowMs: WINDOW_MS },
  ];
  if (input.email) {
    scopes.push({
      name: 'email',
      id: `dashboard:${kind}:email:${input.email}`,
      limit: limits.perEmail,
      windowMs: WINDOW_MS,
    });
  }
  const decision = await limiter.consume(scopes, input.now);
  if (decision.allowed) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
}
