import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
    format: ['esm'],
    dts: true,
    clean: true,
    target: 'node20',
    external: ['nodemailer', 'vitest'],
  },
  {
    // The pages' one script (copy button, wiping a revealed key, the live view), served by the
    // dashboard itself so that the Content-Security-Policy can say `script-src 'self'`.
    // The passkey forms' script (with @simplewebauthn/browser) is a second one, on their pages only.
    entry: { 'dashboard-script': 'src/client/dashboard-script.ts', 'passkeys-script': 'src/client/passkeys-script.ts' },
    format: ['iife'],
    outExtension: () => ({ js: '.js' }),
    minify: true,
    target: 'es2020',
    platform: 'browser',
  },
]);
