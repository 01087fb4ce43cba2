import { ipScopeKey, type Limiter, type LimitScope } from '@tidings/core';

/** What is counted: each kind has its own limits per client IP, and per email or per email and IP. */
export type ThrottleKind = 'sign-in' | 'code' | 'send-code' | 'sign-up' | 'second-factor';

const WINDOW_MS = 15 * 60_000;

/** Requests allowed per 15 minutes; null where a kind is not counted that way. */
export interface ThrottleLimits {
  /** Per client IP, whatever the email. */
  perIp: number;
  /** Per email and client IP together: what guesses at one account from one address meet. */
  perEmailAndIp: number | null;
  /** Per email, from every address together. */
  perEmail: number | null;
}

/**
 * The limits of each kind. Guessing a password or a code is counted per address and per
 * account and address, never per account alone: a limit per account would let anyone lock its
 * owner out by failing on purpose from anywhere. (A code also dies after a few wrong tries, and
 * the password rule refuses the passwords that guessing finds.) Mail is counted per email, so
 * that nobody can flood an inbox with codes or sign-up mails.
 */
export const throttleLimits: Record<ThrottleKind, ThrottleLimits> = {
  'sign-in': { perIp: 30, perEmailAndIp: 10, perEmail: null },
  code: { perIp: 30, perEmailAndIp: 10, perEmail: null },
  'send-code': { perIp: 20, perEmailAndIp: null, perEmail: 3 },
  'sign-up': { perIp: 10, perEmailAndIp: null, perEmail: 3 },
  'second-factor': { perIp: 30, perEmailAndIp: 10, perEmail: null },
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
  const ip = ipScopeKey(input.ip);
  const scopes: LimitScope[] = [
    { name: 'ip', id: `dashboard:${kind}:ip:${ip}`, limit: limits.perIp, windowMs: WINDOW_MS },
  ];
  if (input.email && limits.perEmailAndIp !== null) {
    scopes.push({
      name: 'email-ip',
      id: `dashboard:${kind}:email-ip:${input.email}:${ip}`,
      limit: limits.perEmailAndIp,
      windowMs: WINDOW_MS,
    });
  }
  if (input.email && limits.perEmail !== null) {
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
