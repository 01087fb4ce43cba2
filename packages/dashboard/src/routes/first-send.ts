import { apiKeyPrefix, isWellFormedApiKey, newId, type ProjectObject, TidingsError, toProblem } from '@tidings/core';
import type { Context, Hono } from 'hono';
import { clientIp, type DashboardEnv, type Deps, loadSession, ownedProject } from '../context.js';
import type { SignedIn } from '../domain/sessions.js';

/**
 * The recipient a dashboard tab connects as for the first send: one per account, in each of its
 * projects (recipients belong to a project). Documented in docs/dashboard.md, "The first send".
 */
export function firstSendRecipient(accountId: string): string {
  return `dashboard:${accountId}`;
}

/** The title the "Send a test notification" panel offers, until the person writes another. */
export const FIRST_SEND_TITLE = 'Hello from Tidings';
/** The body the panel offers. */
export const FIRST_SEND_BODY = 'Your first notification, sent through POST /v1/notifications.';

/**
 * The title or body of a test send, as the page typed it: a string, else the route's default.
 * Its length and content are the API's to check, as for any send (400 VALIDATION_FAILED).
 */
function textField(body: Record<string, unknown>, field: 'title' | 'body', fallback: string): string {
  const value = body[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'string') {
    throw new TidingsError('VALIDATION_FAILED', `The ${field} must be text`, {
      errors: [{ path: field, message: 'must be a string' }],
    });
  }
  return value;
}

/** Where the pages' API lives: the public URL of the Tidings instance, else this request's origin. */
export function apiUrlOf(c: Context, deps: Deps): string {
  return (deps.options.publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
}

/** A problem document (docs/api.md#errors) as a dashboard JSON route answers it. */
function problem(error: TidingsError): Response {
  const body = toProblem(error, newId('req'));
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', ...error.headers },
  });
}

/**
 * Only the dashboard's own pages may call these routes: the browser says so with `Origin` (or
 * `Sec-Fetch-Site: same-origin`). `hono/csrf` checks form posts only, and these take JSON.
 */
function sameOrigin(c: Context, deps: Deps): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = c.req.header('origin');
  return origin === new URL(c.req.url).origin || (origin !== undefined && origin === deps.options.publicUrl);
}

/** Reads a JSON object body; anything else is the contract's 415 or 400. */
async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new TidingsError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  }
  const text = await c.req.text();
  if (text.length > 16_384) throw new TidingsError('PAYLOAD_TOO_LARGE', 'The body is over 16 KiB');
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new TidingsError('VALIDATION_FAILED', 'The body is not JSON', {
      errors: [{ path: '', message: 'must be a JSON object' }],
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TidingsError('VALIDATION_FAILED', 'The body must be a JSON object', {
      errors: [{ path: '', message: 'must be a JSON object' }],
    });
  }
  return value as Record<string, unknown>;
}

/**
 * The first send (docs/dashboard.md#the-first-send), two JSON routes under a project:
 *
 * - `POST …/first-send/token` mints a connect token for the signed-in account's own recipient
 *   (`dashboard:<account id>`) of its own project, through `tidings.createConnectToken`, so that
 *   the page connects with the browser SDK like any customer's page.
 * - `POST …/first-send/send` takes an API key of the project in its body (and a title and body
 *   the page may have edited) and makes the send with it through the public pipeline (`POST /v1/notifications`, answered in-process by
 *   `tidings.fetch`), to that recipient only. The key is used for this one request and kept
 *   nowhere. A page cannot make the send itself: a live key from a browser is refused (403).
 *
 * Both need a session (else 401), a request from the dashboard's own origin (else 403), and a
 * project of the account (else 404, as for an unknown one); errors are problem documents.
 * Registered before the dashboard's sign-in redirect, which is for pages, not for these.
 */
export function registerFirstSendRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { tidings } = deps;

  async function guard(c: Context<DashboardEnv>): Promise<{ signedIn: SignedIn; project: ProjectObject }> {
    if (!sameOrigin(c, deps)) {
      throw new TidingsError('FORBIDDEN', 'This request was not sent from a page of this dashboard');
    }
    const signedIn = await loadSession(c, deps);
    if (!signedIn) throw new TidingsError('UNAUTHORIZED', 'Sign in to the dashboard first');
    const project = await ownedProject(deps, signedIn, c.req.param('id') ?? '');
    return { signedIn, project };
  }

  app.use('/projects/:id/first-send/*', async (c, next) => {
    if (c.req.method === 'POST') return next();
    return problem(
      new TidingsError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed here`, { headers: { Allow: 'POST' } }),
    );
  });

  /** A route whose refusals are problem documents rather than the pages' error page. */
  const answering =
    (handler: (c: Context<DashboardEnv>) => Promise<Response>) =>
    async (c: Context<DashboardEnv>): Promise<Response> => {
      try {
        return await handler(c);
      } catch (error) {
        if (error instanceof TidingsError) return problem(error);
        throw error;
      }
    };

  app.post(
    '/projects/:id/first-send/token',
    answering(async (c) => {
      const { signedIn, project } = await guard(c);
      await jsonBody(c);
      const minted = await tidings.createConnectToken({
        projectId: project.id,
        recipient: firstSendRecipient(signedIn.account.account.id),
        baseUrl: apiUrlOf(c, deps),
      });
      // The token goes in this answer's body only: not in a URL, a cookie or a log.
      const { object, token, recipient, expires_at } = minted;
      return c.json({ object, token, recipient, expires_at }, 200, { 'Cache-Control': 'no-store' });
    }),
  );

  app.post(
    '/projects/:id/first-send/send',
    answering(async (c) => {
      const { signedIn, project } = await guard(c);
      const body = await jsonBody(c);
      const key = typeof body.key === 'string' ? body.key.trim() : '';
      if (!isWellFormedApiKey(key)) {
        throw new TidingsError('VALIDATION_FAILED', 'Paste an API key of this project (sk_live_… or sk_test_…)', {
          errors: [{ path: 'key', message: 'must be sk_live_ or sk_test_ and 32 letters and digits' }],
        });
      }
      const keys = await tidings.admin.listKeys(project.id);
      if (!keys.some((item) => item.revoked_at === null && item.prefix === apiKeyPrefix(key))) {
        throw new TidingsError('VALIDATION_FAILED', 'This is not an active key of this project', {
          errors: [{ path: 'key', message: 'must be an active key of this project' }],
        });
      }
      // The public API's own request, as a server would send it: no Origin, so a live key passes the
      // browser guard, and every check (key, suspension, limits, validation) applies as to any send.
      // (It is answered in-process, so the dashboard's own origin names it, whatever the public URL.)
      const request = new Request(`${new URL(c.req.url).origin}/v1/notifications`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          recipient: firstSendRecipient(signedIn.account.account.id),
          title: textField(body, 'title', FIRST_SEND_TITLE),
          body: textField(body, 'body', FIRST_SEND_BODY),
        }),
      });
      const answer = await tidings.fetch(request, { clientAddress: clientIp(c, deps.options) });
      return new Response(await answer.text(), {
        status: answer.status,
        headers: {
          'Content-Type': answer.headers.get('Content-Type') ?? 'application/json',
          'Cache-Control': 'no-store',
          ...(answer.headers.has('Retry-After') ? { 'Retry-After': answer.headers.get('Retry-After') ?? '' } : {}),
        },
      });
    }),
  );
}
