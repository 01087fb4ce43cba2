import type { AttemptRecord, NotificationRecord } from '../ports/records.js';

/**
 * The record of an attempt a store has just written for `notification`: accepted, with nothing
 * else happened yet. Test mode records its attempts final at once: nothing will ever be sent for
 * them.
 */
export function acceptedAttempt(
  notification: NotificationRecord,
  attemptId: string,
  browserId: string,
  seq: number,
): AttemptRecord {
  return {
    id: attemptId,
    notificationId: notification.id,
    browserId,
    seq,
    status: 'accepted',
    final: notification.mode === 'test',
    acceptedAt: notification.createdAt,
    sentAt: null,
    sentVia: null,
    pushAcceptedAt: null,
    deliveredAt: null,
    failedAt: null,
    expiredAt: null,
    reason: null,
    displayedAt: null,
    clickedAt: null,
    dismissedAt: null,
  };
}
