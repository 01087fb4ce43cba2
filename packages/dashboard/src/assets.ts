import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import type { DashboardEnv } from './context.js';
import { stylesheet } from './stylesheet.js';

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f5d50"/><path d="M9 11h14v3h-5.5v10h-3V14H9z" fill="#fff"/></svg>`;

/**
 * The pages' script, built by tsup next to this module (`dist/dashboard-script.js`). From the
 * sources (tests run them), the package's `dist` is one level up.
 */
function loadScript(name = 'dashboard-script.js'): string {
  for (const path of [`./${name}`, `../dist/${name}`]) {
    try {
      return readFileSync(new URL(path, import.meta.url), 'utf8');
    } catch {
      // Not here: try the next place.
    }
  }
  throw new Error(`@tidings/dashboard: ${name} is missing; run the build`);
}

let script: string | undefined;
let passkeysScript: string | undefined;

/** The stylesheet, the icon and the scripts; same origin, so the CSP can stay `'self'`. */
export function registerAssetRoutes(app: Hono<DashboardEnv>): void {
  const headers = (type: string) => ({ 'Content-Type': type, 'Cache-Control': 'no-cache' });
  app.get('/assets/dashboard.css', (c) => c.body(stylesheet, 200, headers('text/css; charset=utf-8')));
  app.get('/assets/icon.svg', (c) => c.body(ICON, 200, headers('image/svg+xml')));
  app.get('/assets/dashboard.js', (c) => {
    script ??= loadScript();
    return c.body(script, 200, headers('text/javascript; charset=utf-8'));
  });
  // The passkey forms' script (WebAuthn), loaded only by the pages that have one.
  app.get('/assets/passkeys.js', (c) => {
    passkeysScript ??= loadScript('passkeys-script.js');
    return c.body(passkeysScript, 200, headers('text/javascript; charset=utf-8'));
  });
}
