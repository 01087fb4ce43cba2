import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { newId, type Tidings, TidingsError, toProblem } from '@tidings/core';
import type { Context, Hono } from 'hono';
import { demoPageHtml, demoScript, demoStyle } from './demo-page.js';
import { type DemoCredentials, demoRecipient } from './demo-setup.js';

/** What the demo page may use: the running Tidings (to mint connect tokens) and the demo project. */
export interface DemoPageContext {
  tidings: Tidings;
  demo: DemoCredentials;
}

/** The SDK's script-tag build, as the installed `@tidings/browser` ships it. */
function readBrowserSdk(): string {
  const specifier = '@tidings/browser/tidings.global.js';
  try {
    // resolve() throws too when the file is missing: an unbuilt SDK in a checkout.
    return readFileSync(createRequire(import.meta.url).resolve(specifier), 'utf8');
  } catch (error) {
    throw new TidingsError(
      'INTERNAL_ERROR',
      `demo: cannot read ${specifier} (${(error as NodeJS.ErrnoException).code}); build @tidings/browser first`,
    );
  }
}

// Only this server's own scripts and the one inline stylesheet: the page shows a live key, so it
// runs nothing that another origin supplies.
const securityHeaders = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'sha256-${createHash('sha256').update(demoStyle).digest('base64')}'`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

const javascript = (c: Context, source: string) =>
  c.body(source, 200, {
    'Content-Type': 'text/javascript; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });

/**
 * Registers the demo that `tidings serve --demo` points to: `GET /demo`, a page that connects as
 * recipient `demo-user` with `@tidings/browser` and lists what arrives, with a curl that sends to
 * it; `GET /demo/token`, which mints the page's connect token as a customer's server would for
 * its signed-in user; and the page's two scripts. The SDK is read once, here.
 */
export function registerDemoPage(app: Hono, { tidings, demo }: DemoPageContext): void {
  const sdk = readBrowserSdk();
  const page = (c: Context) => {
    const origin = new URL(c.req.url).origin;
    return c.html(demoPageHtml({ origin, recipient: demoRecipient, liveKey: demo.liveKey }), 200, securityHeaders);
  };
  app.get('/demo', page);
  app.get('/demo/', page);
  app.get('/demo/tidings.global.js', (c) => javascript(c, sdk));
  app.get('/demo/demo.js', (c) => javascript(c, demoScript));
  app.get('/demo/token', async (c) => {
    try {
      const token = await tidings.createConnectToken({
        projectId: demo.projectId,
        recipient: demoRecipient,
        baseUrl: new URL(c.req.url).origin,
      });
      return c.json(token, 200, { 'Cache-Control': 'no-store' });
    } catch (error) {
      // A suspended or deleted demo project: the page shows the problem instead of retrying blindly.
      if (!(error instanceof TidingsError)) throw error;
      const problem = toProblem(error, newId('req'));
      return new Response(JSON.stringify(problem), {
        status: problem.status,
        headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' },
      });
    }
  });
}
