import type { ApiKeyRecord, ProjectRecord } from '../ports/records.js';
import { runApiKeyChecks } from './api-key-checks.js';
import type { RouteContext, Services } from './context.js';
import { readBodyText } from './http/body.js';

/**
 * A refused request's body, read for the request log only (what it was sent to, its recipient):
 * the refusal stands whatever the body is, so a body that cannot be read is left unread. Only
 * refusals of a known key pay for it; an accepted request's route reads its body itself.
 */
async function readRefusedBody(ctx: RouteContext, maxBytes: number): Promise<void> {
  if (ctx.request.body === null || ctx.request.bodyUsed) return;
  await readBodyText(ctx.request, maxBytes).catch(() => undefined);
}

/**
 * Runs the API-key checks for a route; a refusal is thrown, success sets the RateLimit headers.
 * `counts` names the limit scopes the request counts against (inbox reads have their own).
 * A known key (revoked included) names the request's caller, for the request log.
 * The checks bring their own store (`apiKeyChecks`): a route's roles do not matter here.
 */
export async function authenticate(
  ctx: RouteContext,
  services: Services<unknown>,
  counts: 'requests' | 'inbox-reads' = 'requests',
): Promise<{ key: ApiKeyRecord; project: ProjectRecord }> {
  const outcome = await runApiKeyChecks(services.apiKeyChecks, {
    authorization: ctx.request.headers.get('authorization'),
    origin: ctx.request.headers.get('origin'),
    clientIpKey: ctx.clientIpKey,
    now: ctx.now,
    counts,
  });
  const found = outcome.kind === 'refused' ? outcome.found : outcome;
  // Whose request this is, refused or not: the request log records it for that project.
  if (found !== null) ctx.caller = { projectId: found.project.id, keyPrefix: found.key.prefix, mode: found.key.mode };
  if (outcome.kind === 'refused') {
    if (found !== null) await readRefusedBody(ctx, services.options.maxBodyBytes);
    throw outcome.error;
  }
  ctx.responseHeaders = outcome.headers;
  return outcome;
}
