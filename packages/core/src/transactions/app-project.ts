import type { ProjectRecord } from '../ports/records.js';
import type { AccountStore } from '../ports/store.js';
import { sha256Hex } from '../shared/sha256.js';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * The ids of an application's own project and of the account that holds it, made from its name
 * alone, so that every instance and every restart names the same records: the time part is
 * zero, the rest comes from the name's SHA-256.
 */
export function appProjectIds(name: string): { accountId: string; projectId: string } {
  const digest = sha256Hex(`tidings app project\n${name}`);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[Number.parseInt(digest.slice(i * 2, i * 2 + 2), 16) % 32];
  return { accountId: `acct_0000000000${tail}`, projectId: `proj_0000000000${tail}` };
}

/** Checks the name an application gives its project (the rule of the dashboard's project names). */
export function checkAppProjectName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 100) {
    throw new TypeError('Tidings option project must be a name of 1 to 100 characters, e.g. "my-app"');
  }
  return name.trim();
}

/**
 * The project an application named (`createTidings({ project })`), made if it is not there yet
 * with a verified account of its own. Idempotent and safe to run from several instances at once:
 * the ids are the name's, so a concurrent maker's insert fails on them and its record is read.
 */
export async function ensureAppProject(store: AccountStore, name: string, now: number): Promise<ProjectRecord> {
  const { accountId, projectId } = appProjectIds(name);
  const existing = await store.getProject(projectId);
  if (existing) return existing;
  if ((await store.getAccount(accountId)) === null) {
    try {
      await store.createAccount({ id: accountId, email: `${accountId}@app.tidings.invalid`, verified: true, now });
    } catch (error) {
      // Made by another instance meanwhile: its account is this one.
      if ((await store.getAccount(accountId)) === null) throw error;
    }
  }
  try {
    const created = await store.createProject({
      id: projectId,
      accountId,
      name,
      now,
      maxProjects: Number.MAX_SAFE_INTEGER,
    });
    if (created.kind === 'created') return created.project;
  } catch (error) {
    const made = await store.getProject(projectId);
    if (made) return made;
    throw error;
  }
  const made = await store.getProject(projectId);
  if (made) return made;
  throw new Error(`Tidings could not make the project ${name}`);
}
