import { hashSecret, newId, type Store } from '@tidings/core';

/** A verified account, one project and one live API key `key` in `store`, all made at `now`. */
export async function seedKey(store: Store, key: string, now: number) {
  const account = await store.createAccount({ id: newId('acct', now), email: 'a@example.com', verified: true, now });
  const project = await store.createProject({
    id: newId('proj', now),
    accountId: account.id,
    name: 'P',
    now,
    maxProjects: 10,
  });
  if (project.kind !== 'created') throw new Error(project.kind);
  const created = await store.createApiKey({
    id: newId('key', now),
    projectId: project.project.id,
    hash: hashSecret(key),
    prefix: key.slice(0, 12),
    mode: 'live',
    name: null,
    now,
    maxActive: 10,
  });
  if (created.kind !== 'created') throw new Error(created.kind);
  return { project: project.project, key: created.key };
}
