import type { BrowserRecord, KeyMode, NotificationWithAttempts, ProjectRecord } from '../ports/records.js';
import type {
  AccountStore,
  BrowserStore,
  CreateNotificationInput,
  CreateNotificationResult,
  NotificationStore,
  Store,
  StoredResponse,
} from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { hashSecret } from '../shared/secrets.js';

/**
 * Gives each group of tests the store of the test being run; `Roles`, the roles of the store the
 * group uses, so that it can run against something that implements only those.
 */
export type GetStore<Roles = Store> = () => Roles;

/** A fixed instant (2026-01-01T12:00:00Z), so that UTC days in assertions are known. */
export const T0 = Date.UTC(2026, 0, 1, 12);

/** A day is long enough for any ttl or lock the tests use to pass. */
export const DAY_MS = 86_400_000;

/** The response the tests store for replays: it names what was recorded, so a replay can be checked. */
export function renderForTest(created: NotificationWithAttempts): StoredResponse {
  return {
    status: 201,
    body: JSON.stringify({ id: created.notification.id, attempts: created.attempts.map((attempt) => attempt.id) }),
  };
}

/** A verified account with one project. */
export async function seedProject(store: AccountStore, now = T0): Promise<ProjectRecord> {
  const account = await store.createAccount({
    id: newId('acct', now),
    email: 'owner@example.com',
    verified: true,
    now,
  });
  const result = await store.createProject({
    id: newId('proj', now),
    accountId: account.id,
    name: 'App',
    now,
    maxProjects: 10,
  });
  if (result.kind !== 'created') throw new Error(`seedProject: ${result.kind}`);
  return result.project;
}

/** Registers a connected browser of a recipient; the secret is `bs_` and a fixed tail. */
export async function seedBrowser(
  store: BrowserStore,
  projectId: string,
  recipient: string,
  now = T0,
): Promise<BrowserRecord> {
  return store.registerBrowser({
    id: newId('brw', now),
    projectId,
    recipient,
    secretHash: hashSecret(`bs_${recipient}_secret`),
    now,
  });
}

/** What {@link send} records; everything but the project and recipient has a default. */
export interface SendInput {
  projectId: string;
  recipient: string;
  mode?: KeyMode;
  now?: number;
  ttl?: number;
  title?: string;
  data?: Record<string, unknown> | null;
  idempotencyKey?: string | null;
  /** The fingerprint recorded with `idempotencyKey`. @default 'fp-a' */
  fingerprint?: string;
  /** When the result stops answering for `idempotencyKey`. @default now + one day */
  idempotencyExpiresAt?: number;
  /** Jobs enqueued with the send. */
  jobs?: CreateNotificationInput['jobs'];
  /** The notification's id. @default a new one */
  id?: string;
  /** The sending key's id recorded with the notification. @default null */
  apiKeyId?: string | null;
  /** The request id recorded with the notification. @default null */
  requestId?: string | null;
  /** Kept for the inbox when the recipient has no connected browser. @default false */
  keepForInbox?: boolean;
}

/** Calls `createNotification` as the pipeline would, with a fresh notification record. */
export function send(store: NotificationStore, input: SendInput): Promise<CreateNotificationResult> {
  const now = input.now ?? T0;
  const ttl = input.ttl ?? 3600;
  return store.createNotification({
    notification: {
      id: input.id ?? newId('ntf', now),
      projectId: input.projectId,
      mode: input.mode ?? 'live',
      recipient: input.recipient,
      title: input.title ?? 'Hello',
      body: 'Body text',
      url: 'https://example.com/a',
      icon: null,
      tag: 'greeting',
      data: input.data === undefined ? { order: 42, nested: { ok: true } } : input.data,
      ttl,
      createdAt: now,
      expiresAt: now + ttl * 1000,
      apiKeyId: input.apiKeyId ?? null,
      requestId: input.requestId ?? null,
      idempotencyKey: input.idempotencyKey ?? null,
    },
    newAttemptId: () => newId('att', now),
    idempotency:
      input.idempotencyKey == null
        ? null
        : {
            key: input.idempotencyKey,
            fingerprint: input.fingerprint ?? 'fp-a',
            expiresAt: input.idempotencyExpiresAt ?? now + DAY_MS,
          },
    render: renderForTest,
    ...(input.jobs ? { jobs: input.jobs } : {}),
    ...(input.keepForInbox ? { keepForInbox: true } : {}),
  });
}

/** Like {@link send}, but fails the test unless the notification was created. */
export async function sendCreated(store: NotificationStore, input: SendInput): Promise<NotificationWithAttempts> {
  const result = await send(store, input);
  if (result.kind !== 'created') throw new Error(`expected created, got ${result.kind}`);
  return result.created;
}

/** Reads a notification back, failing the test if it is missing. */
export async function readBack(
  store: NotificationStore,
  projectId: string,
  id: string,
): Promise<NotificationWithAttempts> {
  const found = await store.getNotification({ projectId, id });
  if (!found) throw new Error(`notification ${id} not found`);
  return found;
}
