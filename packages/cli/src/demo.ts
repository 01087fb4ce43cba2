import type { Tidings } from '@tidings/core';
import type { Hono } from 'hono';
import type { DemoCredentials } from './demo-setup.js';

/** What the demo page may use: the running Tidings (to mint connect tokens) and the demo project. */
export interface DemoPageContext {
  tidings: Tidings;
  demo: DemoCredentials;
}

/**
 * Registers `GET /demo`, the page `tidings serve --demo` points to.
 *
 * PLACEHOLDER: the real page (it connects as recipient `demo-user` with `@tidings/browser` and
 * shows what arrives) comes with the browser SDK and replaces this function's body. Keep the
 * name and signature, which `server.ts` calls.
 */
export function registerDemoPage(app: Hono, _context: DemoPageContext): void {
  app.get('/demo', (c) =>
    c.html(
      '<!doctype html><html lang="en"><meta charset="utf-8"><title>Tidings demo</title>' +
        '<h1>Tidings demo</h1><p>The demo page comes with the browser SDK (<code>@tidings/browser</code>).</p>',
    ),
  );
}
