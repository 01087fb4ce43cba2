import { hashSecret, newId, type Store } from '@tidings/core';
import type { CreateNotificationInput, CreateNotificationResult } from '@tidings/core/store';

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

/**
 * A notification of `projectId` at `now` (live, to recipient `r`, unless the options say
 * otherwise), sent as the core would send it.
 */
export function sendLive(
  store: Store,
  projectId: string,
  now: number,
  options: Partial<Pick<CreateNotificationInput['notification'], 'body' | 'data' | 'recipient' | 'mode'>> & {
    attemptId?: string;
    render?: CreateNotificationInput['render'];
  } = {},
): Promise<CreateNotificationResult> {
  return store.createNotification({
    notification: {
      id: newId('ntf', now),
      projectId,
      mode: options.mode ?? 'live',
      recipient: options.recipient ?? 'r',
      title: 'Hello',
      body: options.body ?? null,
      url: null,
      icon: null,
      tag: null,
      data: options.data ?? null,
      ttl: 60,
      createdAt: now,
      expiresAt: now + 60_000,
      apiKeyId: null,
      requestId: null,
      idempotencyKey: null,
    },
    newAttemptId: () => options.attemptId ?? newId('att', now),
    idempotency: null,
    render: options.render ?? ((created) => ({ status: 201, body: JSON.stringify({ id: created.notification.id }) })),
  });
}

/**
 * The rows every migration test starts from: an account, its project and a recipient `r`. The
 * columns are named, so the rows fit the tables at every step (later steps add columns).
 */
export const MIGRATION_BASE_ROWS = (now: number) => `
  INSERT INTO accounts (id, email, verified, created_at) VALUES ('acct_1', 'a@example.com', 1, ${now});
  INSERT INTO projects (id, account_id, name, suspended, created_at) VALUES ('proj_1', 'acct_1', 'P', 0, ${now});
  INSERT INTO recipients VALUES ('proj_1', 'r', ${now});
`;
