import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Context, Hono } from 'hono';

/** The path under which `tidings serve` serves the browser SDK's files. */
export const SDK_PATH = '/sdk';

/**
 * The files of `@tidings/browser` a page loads from the server itself: the script-tag builds
 * (without and with Web Push, with the inbox and `<tidings-inbox>`) and the Web Push service worker.
 */
export const SDK_FILES = [
  'tidings.global.js',
  'tidings-push.global.js',
  'tidings-inbox.global.js',
  'tidings-sw.js',
] as const;

interface SdkFile {
  source: string;
  etag: string;
}

/** A file as the installed `@tidings/browser` ships it, with its ETag. */
function readSdkFile(name: string): SdkFile {
  const specifier = `@tidings/browser/${name}`;
  let source: string;
  try {
    // resolve() throws too when the file is missing: an unbuilt SDK in a checkout.
    source = readFileSync(createRequire(import.meta.url).resolve(specifier), 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read ${specifier} (${(error as NodeJS.ErrnoException).code}); build @tidings/browser first`,
    );
  }
  return { source, etag: `"${createHash('sha256').update(source).digest('base64url').slice(0, 27)}"` };
}

/**
 * Registers `GET /sdk/<file>` for each of {@link SDK_FILES}, so that a page loads the SDK of the
 * very server it talks to, in the version of that server. Any origin may load them (they hold
 * nothing secret); they are revalidated with their ETag, so an upgraded server serves its new
 * SDK at once. The service worker may control a whole origin (`Service-Worker-Allowed: /`) when
 * the pages are served from the same origin as the server (behind one reverse proxy).
 */
export function registerSdkFiles(app: Hono): void {
  const files = new Map<string, SdkFile>();
  for (const name of SDK_FILES) {
    app.get(`${SDK_PATH}/${name}`, (c: Context) => {
      let file = files.get(name);
      if (!file) {
        file = readSdkFile(name);
        files.set(name, file);
      }
      const headers: Record<string, string> = {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'no-cache',
        ETag: file.etag,
        'Access-Control-Allow-Origin': '*',
        'Cross-Origin-Resource-Policy': 'cross-origin',
        'X-Content-Type-Options': 'nosniff',
        ...(name === 'tidings-sw.js' ? { 'Service-Worker-Allowed': '/' } : {}),
      };
      if (c.req.header('If-None-Match') === file.etag) return c.body(null, 304, headers);
      return c.body(file.source, 200, headers);
    });
  }
}
