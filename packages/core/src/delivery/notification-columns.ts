import type { NotificationRecord } from '../ports/records.js';

/**
 * The values of a notification's columns that every store writes first, in this order: id,
 * project, mode, recipient, title, body, url, icon, tag, data (as JSON text, or null), ttl,
 * creation and expiry times. The key, request and idempotency key follow in each store's own order.
 */
export type NotificationColumnValues = [
  id: string,
  projectId: string,
  mode: string,
  recipient: string,
  title: string,
  body: string | null,
  url: string | null,
  icon: string | null,
  tag: string | null,
  data: string | null,
  ttl: number,
  createdAt: number,
  expiresAt: number,
];

/** The values of {@link NotificationColumnValues} for a notification. */
export function notificationColumnValues(notification: NotificationRecord): NotificationColumnValues {
  return [
    notification.id,
    notification.projectId,
    notification.mode,
    notification.recipient,
    notification.title,
    notification.body,
    notification.url,
    notification.icon,
    notification.tag,
    notification.data === null ? null : JSON.stringify(notification.data),
    notification.ttl,
    notification.createdAt,
    notification.expiresAt,
  ];
}
