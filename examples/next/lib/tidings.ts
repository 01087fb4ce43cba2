import { createTidings, type Tidings } from '@tidings/core';
import { createSqliteStore } from '@tidings/store-sqlite';

// One instance per process, made at the first request: route handlers, and the instrumentation
// hook that closes it, may each be bundled with their own copy of this module, so it is kept on
// globalThis.
const held = globalThis as typeof globalThis & { tidings?: Tidings };

/** The app's Tidings: one project named by the app, on an SQLite file beside it. */
export function getTidings(): Tidings {
  held.tidings ??= createTidings({ store: createSqliteStore({ path: 'tidings.db' }), project: 'my-app' });
  return held.tidings;
}

/** Closes the instance if one was made: its open event streams end, so the server can close. */
export async function closeTidings(): Promise<void> {
  await held.tidings?.close();
}
