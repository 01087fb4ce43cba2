import type { Clock } from '../ports/clock.js';
import type { NewJob } from '../ports/jobs.js';
import type { NotificationRecord } from '../ports/records.js';
import type { InboxStore } from '../ports/store.js';
import type { JobHandler } from '../shared/job-runner.js';

/** The job kind of `notify_unread_after` (docs/inbox.md#remind-on-unread-notify_unread_after). */
export const UNREAD_REMINDER_JOB_KIND = 'inbox-unread';

/** What an unread reminder job carries. */
export interface UnreadReminderPayload {
  notificationId: string;
  afterSeconds: number;
}

/** The reminder of a live send with `notify_unread_after`, due that many seconds after the send. */
export function unreadReminderJob(notification: NotificationRecord, afterSeconds: number): NewJob {
  const payload: UnreadReminderPayload = { notificationId: notification.id, afterSeconds };
  return {
    kind: UNREAD_REMINDER_JOB_KIND,
    key: `inbox-unread:${notification.id}`,
    projectId: notification.projectId,
    payload,
    runAt: notification.createdAt + afterSeconds * 1000,
  };
}

/**
 * The handler of the reminder: the store records `notification.unread` for an item still unread,
 * and marks it reminded, in one transaction, so that a job run again (a lost lease, a crash
 * before its completion was recorded) reminds no one twice.
 */
export function unreadReminderHandler(store: Pick<InboxStore, 'remindUnread'>, clock: Clock): JobHandler {
  return async (job) => {
    const { notificationId, afterSeconds } = job.payload as UnreadReminderPayload;
    await store.remindUnread({ notificationId, afterSeconds, now: clock.now() });
  };
}
