import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Hono } from 'hono';
import type { DashboardEnv } from './context.js';
import { stylesheet } from './stylesheet.js';

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f5d50"/><path d="M9 11h14v3h-5.5v10h-3V14H9z" fill="#fff"/></svg>`;

/**
 * A script built by tsup next to this module (`dist/NAME.js`). From the sources (tests run them),
 * the package's `dist` is one level up.
 */
function loadScript(name: string): string {
  for (const path of [`./${name}.js`, `../dist/${name}.js`]) {
    try {
      return readFileSync(new URL(path, import.meta.url), 'utf8');
    } catch {
      // Not here: try the next place.
    }
  }
  throw new Error(`@tidings/dashboard: ${name}.js is missing; run the build`);
}

/** The browser SDK's script-tag build, as the installed `@tidings/browser` ships it. */
function loadBrowserSdk(): string {
  const specifier = '@tidings/browser/tidings.global.js';
  try {
    return readFileSync(createRequire(import.meta.url).resolve(specifier), 'utf8');
  } catch {
    throw new Error(`@tidings/dashboard: cannot read ${specifier}; build @tidings/browser first`);
  }
}

const scripts = new Map<string, string>();
const SCRIPTS: Record<string, () => string> = {
  'dashboard.js': () => loadScript('dashboard-script'),
  'first-send.js': () => loadScript('first-send'),
  // The passkey forms' script (WebAuthn), loaded only by the pages that have one.
  'passkeys.js': () => loadScript('passkeys-script'),
  'tidings.global.js': loadBrowserSdk,
};

/**
 * The stylesheet, the icon and the scripts (the pages' own, the first send's and the browser SDK
 * it connects with, the passkey forms'); same origin, so the CSP can stay `'self'`.
 */
export function registerAssetRoutes(app: Hono<DashboardEnv>): void {
  const headers = (type: string) => ({ 'Content-Type': type, 'Cache-Control': 'no-cache' });
  app.get('/assets/dashboard.css', (c) => c.body(stylesheet, 200, headers('text/css; charset=utf-8')));
  app.get('/assets/icon.svg', (c) => c.body(ICON, 200, headers('image/svg+xml')));
  for (const [name, load] of Object.entries(SCRIPTS)) {
    app.get(`/assets/${name}`, (c) => {
      let script = scripts.get(name);
      if (script === undefined) {
        script = load();
        scripts.set(name, script);
      }
      return c.body(script, 200, headers('text/javascript; charset=utf-8'));
    });
  }
}
