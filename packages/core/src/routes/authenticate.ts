import type { RouteContext, Services } from '../context.js';
import { runApiKeyChecks } from '../pipeline/api-key-checks.js';
import type { ApiKeyRecord, ProjectRecord } from '../types.js';

/** Minimum interval between two writes of a key's last-used time (SPEC.md section 8 rule 4). */
const LAST_USED_INTERVAL_MS = 60_000;

/** Runs the API-key checks for a route; a refusal is thrown, success sets the RateLimit headers. */
export async function authenticate(
  ctx: RouteContext,
  services: Services,
): Promise<{ key: ApiKeyRecord; project: ProjectRecord }> {
  const outcome = await runApiKeyChecks(
    {
      store: services.options.store,
      limiter: services.limiter,
      limits: services.options.limits,
      lastUsedIntervalMs: LAST_USED_INTERVAL_MS,
    },
    {
      authorization: ctx.request.headers.get('authorization'),
      origin: ctx.request.headers.get('origin'),
      clientIpKey: ctx.clientIpKey,
      now: ctx.now,
    },
  );
  if (outcome.kind === 'refused') throw outcome.error;
  Object.assign(ctx.responseHeaders, outcome.headers);
  return { key: outcome.key, project: outcome.project };
}
