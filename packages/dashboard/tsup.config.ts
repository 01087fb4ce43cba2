import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      sqlite: 'src/sqlite/index.ts',
      postgres: 'src/postgres/index.ts',
      testing: 'src/testing/index.ts',
    },
    format: ['esm'],
    dts: true,
    clean: true,
    target: 'node22',
    external: ['nodemailer', 'vitest'],
  },
  {
    // The pages' scripts, served by the dashboard itself so that the Content-Security-Policy can
    // say `script-src 'self'`: the one of every page (copy button, wiping a revealed key, the live
    // view), the first send's, which runs beside the browser SDK's script-tag build, and the
    // passkey forms' (with @simplewebauthn/browser), on their pages only.
    entry: {
      'dashboard-script': 'src/client/dashboard-script.ts',
      'first-send': 'src/client/first-send.ts',
      'passkeys-script': 'src/client/passkeys-script.ts',
    },
    format: ['iife'],
    outExtension: () => ({ js: '.js' }),
    minify: true,
    target: 'es2020',
    platform: 'browser',
  },
]);
