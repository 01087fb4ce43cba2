/** @jsxImportSource hono/jsx */
import { TidingsError } from '@tidings/core';
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { jsxRenderer } from 'hono/jsx-renderer';
import { secureHeaders } from 'hono/secure-headers';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { registerAssetRoutes } from './assets.js';
import { type DashboardEnv, type Deps, loadSession, ProjectDeletedError, pageContext } from './context.js';
import { createAccountService } from './domain/accounts.js';
import { createSessions, sessionCookieName } from './domain/sessions.js';
import { type DashboardOptions, resolveDashboardOptions } from './options.js';
import { render, seeOther } from './render.js';
import { registerAccountRoutes } from './routes/account.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerFirstSendRoutes } from './routes/first-send.js';
import { registerHistoryRoutes } from './routes/history.js';
import { registerLiveRoutes } from './routes/live.js';
import { registerOperatorRoutes } from './routes/operator.js';
import { registerProjectDeleteRoutes } from './routes/project-delete.js';
import { registerProjectRoutes } from './routes/projects.js';
import { registerRecipientRoutes } from './routes/recipients.js';
import { registerRequestRoutes } from './routes/requests.js';
import { registerSecurityRoutes, SECOND_FACTOR_PATHS } from './routes/security.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { ErrorPage } from './views/error-page.js';
import { PageContextProvider } from './views/layout.js';
import { ProjectDeletedPage } from './views/project-deleted-page.js';

/** How often the dashboard deletes what has expired (docs/dashboard.md#what-is-kept). */
export const PURGE_INTERVAL_MS = 10 * 60_000;

/** Pages anyone may open; every other page needs a session. */
const PUBLIC_PATHS = [
  '/signup',
  '/signup/verify',
  '/signup/verify/resend',
  '/login',
  '/login/code',
  '/login/code/send',
  '/reset',
  '/reset/confirm',
  '/logout',
  ...SECOND_FACTOR_PATHS,
  '/account/deleted',
];

/**
 * The Tidings dashboard as a Hono app, answering under `basePath` (default `/dashboard`):
 * server-rendered pages and plain HTML forms over the same admin API as the CLI. Mount it with
 * `app.route('/', tidingsDashboard({ tidings, store: createSqliteDashboardStore(sqliteStore) }))`.
 */
export function tidingsDashboard(dashboardOptions: DashboardOptions): Hono<DashboardEnv> {
  const options = resolveDashboardOptions(dashboardOptions);
  const deps: Deps = {
    options,
    tidings: options.tidings,
    accounts: createAccountService({ ...options, admin: options.tidings.admin }),
    sessions: createSessions({
      store: options.store,
      idleMs: options.sessionIdleMs,
      absoluteMs: options.sessionAbsoluteMs,
    }),
  };
  const base = options.basePath;
  const app = new Hono<DashboardEnv>().basePath(base);

  // The one renderer of every page: the doctype, and the request's page context (base path, who
  // is signed in) for the layout and the pages, read when the page renders, after the session.
  app.use(
    '*',
    jsxRenderer(
      ({ children }, c) => (
        <PageContextProvider value={pageContext(c as never, options)}>{children}</PageContextProvider>
      ),
      { docType: '<!doctype html>' },
    ),
  );

  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        // The first send's tab connects to the API at the public URL, when it is set (docs/dashboard.md).
        connectSrc: ["'self'", ...(options.publicUrl ? [new URL(options.publicUrl).origin] : [])],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: 'same-origin',
      crossOriginEmbedderPolicy: false,
      // Set below, and only over https: over plain http a browser ignores it anyway, and a
      // dashboard reached by http on purpose (a laptop, a private network) must not claim it.
      strictTransportSecurity: false,
    }),
  );
  app.use('*', async (c, next) => {
    await next();
    // Pages carry account data and, once, a secret: no cache may keep them.
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
    if (options.secureCookie || new URL(c.req.url).protocol === 'https:') {
      c.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    }
  });

  // Form posts from another origin are refused: the Origin header, or Sec-Fetch-Site, must say
  // this site. The session cookie's SameSite=Lax is the second line.
  const checkOrigin = csrf({
    origin: (origin, c) => origin === new URL(c.req.url).origin || origin === options.publicUrl,
  });
  app.use('*', async (c, next) => {
    try {
      await checkOrigin(c, next);
    } catch (error) {
      if (!(error instanceof HTTPException) || error.status !== 403) throw error;
      return render(
        c,
        <ErrorPage
          title="Request refused"
          code="FORBIDDEN"
          message="This form was not sent from this dashboard, so it was refused. Open the page again and send it from there."
        />,
        403,
      );
    }
  });

  // What expired (sessions, codes, pending sign-ins, challenges) is deleted on the way, at most
  // once per interval per process and never in the request's path: a dashboard needs no timer of
  // its own, and one that nobody opens keeps nothing new to purge.
  let nextPurgeAt = 0;
  app.use('*', async (_c, next) => {
    const now = options.clock.now();
    if (now >= nextPurgeAt) {
      nextPurgeAt = now + PURGE_INTERVAL_MS;
      options.store
        .purgeExpired({ now })
        .catch((error: unknown) => options.logger?.warn('dashboard purge failed', { error: String(error) }));
    }
    return next();
  });

  registerAssetRoutes(app);
  // JSON routes with their own answer to a missing session (401), ahead of the pages' redirect.
  registerFirstSendRoutes(app, deps);

  app.use('*', async (c, next) => {
    const signedIn = await loadSession(c, deps);
    const path = c.req.path.slice(base.length) || '/';
    if (signedIn || PUBLIC_PATHS.includes(path) || path.startsWith('/assets/')) return next();
    // A page asked for before sign-in is where sign-in leads (a link in a mail, a bookmark); a
    // form sent after the session ended leads back to the page it was sent from.
    const url = new URL(c.req.url);
    const from = c.req.method === 'GET' ? url : sameOriginReferer(c.req.header('Referer'), url.origin);
    const query = new URLSearchParams();
    if (from?.pathname.startsWith(base) && from.pathname !== (base || '/')) {
      query.set('next', from.pathname + from.search);
    }
    // A session cookie that no longer signs in: the session ended (expired, or signed out elsewhere).
    if (getCookie(c, sessionCookieName(options.secureCookie))) query.set('session', 'ended');
    const search = query.toString();
    return seeOther(c, `${base}/login${search ? `?${search}` : ''}`);
  });

  registerAuthRoutes(app, deps);
  registerProjectRoutes(app, deps);
  registerHistoryRoutes(app, deps);
  registerRecipientRoutes(app, deps);
  registerRequestRoutes(app, deps);
  registerLiveRoutes(app, deps);
  registerWebhookRoutes(app, deps);
  registerOperatorRoutes(app, deps);
  registerSecurityRoutes(app, deps);
  registerAccountRoutes(app, deps);
  registerProjectDeleteRoutes(app, deps);

  app.all('*', (c) => {
    throw new TidingsError('NOT_FOUND', `No page ${c.req.path}`);
  });

  app.onError((error, c) => {
    // A deleted project's pages say so with 410 Gone, apart from an unknown one's 404.
    if (error instanceof ProjectDeletedError) {
      c.header('Cache-Control', 'no-store');
      return render(c, <ProjectDeletedPage deleted={error.deleted} />, 410);
    }
    if (error instanceof TidingsError) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      c.header('Cache-Control', 'no-store');
      const title = error.code === 'NOT_FOUND' ? 'Not found' : 'Refused';
      const page = <ErrorPage title={title} code={error.code} message={error.message} />;
      return render(c, page, error.status as ContentfulStatusCode);
    }
    if (error instanceof HTTPException) return error.getResponse();
    options.logger?.error('dashboard request failed', {
      method: c.req.method,
      path: c.req.path,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    c.header('Cache-Control', 'no-store');
    return render(
      c,
      <ErrorPage
        title="Something went wrong"
        code="INTERNAL_ERROR"
        message="Something went wrong on our side. Try again."
      />,
      500,
    );
  });

  return app;
}

/** The `Referer` as a URL when it is of `origin`; null otherwise (absent, another site's, bad). */
function sameOriginReferer(referer: string | undefined, origin: string): URL | null {
  if (!referer) return null;
  try {
    const url = new URL(referer);
    return url.origin === origin ? url : null;
  } catch {
    return null;
  }
}
