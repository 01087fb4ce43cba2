import { chmod, readFile, writeFile } from 'node:fs/promises';
import type { AdminApi } from '@tidings/core';
import { storeTarget } from './open-store.js';

/** What `--demo` creates on first run, saved beside the database. */
export interface DemoCredentials {
  accountId: string;
  projectId: string;
  liveKey: string;
  testKey: string;
}

/** The recipient the printed curl sends to, and that the demo page connects as. */
export const demoRecipient = 'demo-user';

/** Where the demo credentials of a database live: `<db>.demo.json`. */
export function demoFilePath(db: string): string {
  return `${db}.demo.json`;
}

/** Whether the demo credentials are saved beside the database: not for `:memory:` nor PostgreSQL. */
export function savesDemoFile(db: string): boolean {
  return db !== ':memory:' && storeTarget(db).kind === 'sqlite';
}

/**
 * On an empty store, creates a verified demo account, a project "Demo", a live and a test key,
 * and saves them (mode 0600: they are secrets) beside the database. On later runs, reads them
 * back. Null when the store has accounts but no saved demo: it is not the demo's to touch. An
 * in-memory or PostgreSQL database has no place beside it: its demo is shown once, not saved.
 */
export async function ensureDemo(
  admin: AdminApi,
  db: string,
): Promise<{ credentials: DemoCredentials; created: boolean } | null> {
  const file = demoFilePath(db);
  if ((await admin.listAccounts()).length === 0) {
    const account = await admin.createAccount({ email: 'demo@example.com', verified: true });
    const project = await admin.createProject({ accountId: account.id, name: 'Demo' });
    const live = await admin.createKey({ projectId: project.id, mode: 'live', name: 'demo live' });
    const test = await admin.createKey({ projectId: project.id, mode: 'test', name: 'demo test' });
    const credentials = { accountId: account.id, projectId: project.id, liveKey: live.key!, testKey: test.key! };
    if (savesDemoFile(db)) {
      await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
      // writeFile's mode applies only to a new file; a stale one from an older database keeps its own.
      await chmod(file, 0o600);
    }
    return { credentials, created: true };
  }
  if (!savesDemoFile(db)) return null;
  try {
    return { credentials: JSON.parse(await readFile(file, 'utf8')) as DemoCredentials, created: false };
  } catch {
    return null;
  }
}

/** The lines `serve --demo` prints: project, keys, the demo page and a curl to paste. */
export function demoText(credentials: DemoCredentials, baseUrl: string, file: string | null): string {
  const body = JSON.stringify({ recipient: demoRecipient, title: 'Hello from Tidings' });
  return [
    `demo project ${credentials.projectId} (account ${credentials.accountId})`,
    `  live key: ${credentials.liveKey}`,
    `  test key: ${credentials.testKey}`,
    ...(file ? [`  saved in ${file}`] : []),
    `demo page: ${baseUrl}/demo`,
    `open it, then send a notification to recipient ${demoRecipient}:`,
    `  curl -X POST ${baseUrl}/v1/notifications -H "Authorization: Bearer ${credentials.liveKey}" -H "Content-Type: application/json" -d '${body}'`,
  ].join('\n');
}

/** The lines that say how to open the dashboard as the demo account. */
export function demoSignInText(signIn: { email: string; code: string; minutes: number }, baseUrl: string): string {
  return [
    `dashboard: ${baseUrl}/dashboard/login/code?email=${encodeURIComponent(signIn.email)}`,
    `  sign in as ${signIn.email} with the one-time code ${signIn.code} (good for ${signIn.minutes} minutes, once)`,
    '  to see the project, its keys, and the log of what you send',
  ].join('\n');
}
