import type { z } from 'zod';
import type {
  AccountRecord,
  ApiKeyRecord,
  AttemptRecord,
  NotificationWithAttempts,
  ProjectRecord,
  UsageDay,
} from '../ports/records.js';
import type { attemptObjectSchema, notificationObjectSchema } from './object-schemas.js';

/**
 * The last few instants formatted. A send formats its created_at and expires_at for its answer
 * and again for the event of each of the recipient's browsers, and toISOString was one of the
 * dearer steps of a send and a read; the same few values recur, so they are formatted once.
 */
const ISO_SLOTS = 4;
const isoMs = new Float64Array(ISO_SLOTS).fill(Number.NaN);
const isoText: string[] = new Array(ISO_SLOTS).fill('');
let isoNext = 0;

/** An epoch-milliseconds time as an RFC 3339 UTC string; null stays null. */
export function isoTime(ms: number): string;
export function isoTime(ms: number | null): string | null;
export function isoTime(ms: number | null): string | null {
  if (ms === null) return null;
  for (let i = 0; i < ISO_SLOTS; i++) if (isoMs[i] === ms) return isoText[i]!;
  const text = new Date(ms).toISOString();
  isoMs[isoNext] = ms;
  isoText[isoNext] = text;
  isoNext = (isoNext + 1) % ISO_SLOTS;
  return text;
}

/** The public account object. */
export interface AccountObject {
  object: 'account';
  id: string;
  email: string;
  verified: boolean;
  created_at: string;
}

/** The public project object. */
export interface ProjectObject {
  object: 'project';
  id: string;
  account_id: string;
  name: string;
  suspended: boolean;
  created_at: string;
  suspended_at: string | null;
  /** Why it was suspended (shown to its owner); null when not suspended or no reason was given. */
  suspended_reason: string | null;
  /** Who suspended it (an operator's email or the CLI's actor); null when not suspended or unknown. */
  suspended_by: string | null;
}

/** The public API key object. `key` is present only in the answer that created it. */
export interface ApiKeyObject {
  object: 'api_key';
  id: string;
  project_id: string;
  key?: string;
  prefix: string;
  mode: 'live' | 'test';
  name: string | null;
  status: 'active' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** The API key object of the answer that created it: the only one that holds the full `key`. */
export interface CreatedApiKeyObject extends ApiKeyObject {
  /** The full key (`sk_live_…`, `sk_test_…`): shown this once, stored only as a hash. */
  key: string;
}

/** The public attempt object (inferred from its schema, which the OpenAPI document is made of). */
export type AttemptObject = z.infer<typeof attemptObjectSchema>;

/** The public notification object (inferred from its schema, which the OpenAPI document is made of). */
export type NotificationObject = z.infer<typeof notificationObjectSchema>;

/** The public usage object: live notifications and attempts per UTC day. */
export interface UsageObject {
  object: 'usage';
  project_id: string;
  from: string;
  to: string;
  days: { date: string; notifications: number; attempts: number }[];
  total: { notifications: number; attempts: number };
}

export function accountObject(account: AccountRecord): AccountObject {
  return {
    object: 'account',
    id: account.id,
    email: account.email,
    verified: account.verified,
    created_at: isoTime(account.createdAt),
  };
}

export function projectObject(project: ProjectRecord): ProjectObject {
  return {
    object: 'project',
    id: project.id,
    account_id: project.accountId,
    name: project.name,
    suspended: project.suspended,
    created_at: isoTime(project.createdAt),
    suspended_at: isoTime(project.suspendedAt),
    suspended_reason: project.suspendedReason,
    suspended_by: project.suspendedBy,
  };
}

export function apiKeyObject(key: ApiKeyRecord, fullKey: string): CreatedApiKeyObject;
export function apiKeyObject(key: ApiKeyRecord): ApiKeyObject;
export function apiKeyObject(key: ApiKeyRecord, fullKey?: string): ApiKeyObject {
  return {
    object: 'api_key',
    id: key.id,
    project_id: key.projectId,
    ...(fullKey === undefined ? {} : { key: fullKey }),
    prefix: key.prefix,
    mode: key.mode,
    name: key.name,
    status: key.revokedAt === null ? 'active' : 'revoked',
    created_at: isoTime(key.createdAt),
    last_used_at: isoTime(key.lastUsedAt),
    revoked_at: isoTime(key.revokedAt),
  };
}

export function attemptObject(attempt: AttemptRecord): AttemptObject {
  return {
    object: 'attempt',
    id: attempt.id,
    browser_id: attempt.browserId,
    status: attempt.status,
    final: attempt.final,
    accepted_at: isoTime(attempt.acceptedAt),
    sent_at: isoTime(attempt.sentAt),
    via: attempt.sentVia,
    push_accepted_at: isoTime(attempt.pushAcceptedAt),
    delivered_at: isoTime(attempt.deliveredAt),
    failed_at: isoTime(attempt.failedAt),
    expired_at: isoTime(attempt.expiredAt),
    reason: attempt.reason,
    displayed_at: isoTime(attempt.displayedAt),
    clicked_at: isoTime(attempt.clickedAt),
    dismissed_at: isoTime(attempt.dismissedAt),
  };
}

export function notificationObject({ notification, attempts }: NotificationWithAttempts): NotificationObject {
  return {
    object: 'notification',
    id: notification.id,
    mode: notification.mode,
    recipient: notification.recipient,
    title: notification.title,
    body: notification.body,
    url: notification.url,
    icon: notification.icon,
    tag: notification.tag,
    data: notification.data,
    ttl: notification.ttl,
    created_at: isoTime(notification.createdAt),
    expires_at: isoTime(notification.expiresAt),
    status: attempts.every((attempt) => attempt.final) ? 'completed' : 'pending',
    attempts: attempts.map(attemptObject),
  };
}

/**
 * The notification object serialized, memoized by the record's identity: a store hands out the
 * same, unchanging record again while the notification has not changed (Store port), so a
 * repeated read renders it once.
 */
export function notificationJson(found: NotificationWithAttempts): string {
  let json = renderedNotifications.get(found);
  if (json === undefined) {
    json = serializeNotification(found);
    renderedNotifications.set(found, json);
  }
  return json;
}

/**
 * `JSON.stringify(notificationObject(found))`, character for character, written out field by
 * field: every send renders its answer, and building the objects to serialize them took a
 * third of the time. Strings go through JSON.stringify; times are ISO strings, which need no
 * escaping.
 */
export function serializeNotification({ notification: n, attempts }: NotificationWithAttempts): string {
  let attemptsJson = '';
  let completed = true;
  for (const a of attempts) {
    if (!a.final) completed = false;
    if (attemptsJson !== '') attemptsJson += ',';
    attemptsJson +=
      `{"object":"attempt","id":${JSON.stringify(a.id)},"browser_id":${JSON.stringify(a.browserId)},` +
      `"status":${JSON.stringify(a.status)},"final":${a.final},"accepted_at":"${isoTime(a.acceptedAt)}",` +
      `"sent_at":${timeJson(a.sentAt)},"via":${stringJson(a.sentVia)},` +
      `"push_accepted_at":${timeJson(a.pushAcceptedAt)},"delivered_at":${timeJson(a.deliveredAt)},` +
      `"failed_at":${timeJson(a.failedAt)},"expired_at":${timeJson(a.expiredAt)},` +
      `"reason":${stringJson(a.reason)},"displayed_at":${timeJson(a.displayedAt)},` +
      `"clicked_at":${timeJson(a.clickedAt)},"dismissed_at":${timeJson(a.dismissedAt)}}`;
  }
  return (
    `{"object":"notification","id":${JSON.stringify(n.id)},"mode":${JSON.stringify(n.mode)},` +
    `"recipient":${JSON.stringify(n.recipient)},"title":${JSON.stringify(n.title)},"body":${stringJson(n.body)},` +
    `"url":${stringJson(n.url)},"icon":${stringJson(n.icon)},"tag":${stringJson(n.tag)},` +
    `"data":${n.data === null ? 'null' : JSON.stringify(n.data)},"ttl":${JSON.stringify(n.ttl)},` +
    `"created_at":"${isoTime(n.createdAt)}","expires_at":"${isoTime(n.expiresAt)}",` +
    `"status":"${completed ? 'completed' : 'pending'}","attempts":[${attemptsJson}]}`
  );
}

/** A string or null as JSON. */
export function stringJson(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/** A time or null as JSON: a quoted ISO string, which needs no escaping. */
export function timeJson(ms: number | null): string {
  return ms === null ? 'null' : `"${isoTime(ms)}"`;
}

const renderedNotifications = new WeakMap<NotificationWithAttempts, string>();

export function usageObject(projectId: string, from: string, to: string, days: UsageDay[]): UsageObject {
  const total = { notifications: 0, attempts: 0 };
  for (const day of days) {
    total.notifications += day.notifications;
    total.attempts += day.attempts;
  }
  return {
    object: 'usage',
    project_id: projectId,
    from,
    to,
    days: days.map((day) => ({ date: day.day, notifications: day.notifications, attempts: day.attempts })),
    total,
  };
}
