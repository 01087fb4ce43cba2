/** @jsxImportSource hono/jsx */
import { clientIp, type DashboardContext, type Deps } from '../context.js';
import { type ThrottleKind, throttle } from '../domain/throttle.js';
import { render } from '../render.js';
import { ErrorPage } from '../views/error-page.js';

/**
 * Counts one attempt of `kind` from the request's address (and `email`, when given); null while
 * allowed, else the 429 page with `Retry-After`.
 */
export async function throttled(
  c: DashboardContext,
  options: Deps['options'],
  kind: ThrottleKind,
  email: string | null,
): Promise<Response | null> {
  const decision = await throttle(options.limiter, kind, {
    ip: clientIp(c, options),
    email,
    now: options.clock.now(),
  });
  if (decision.allowed) return null;
  c.header('Retry-After', String(decision.retryAfterSeconds));
  return render(
    c,
    <ErrorPage
      title="Too many attempts"
      code="RATE_LIMITED"
      message={`Too many attempts. Try again in ${decision.retryAfterSeconds} seconds.`}
    />,
    429,
  );
}
