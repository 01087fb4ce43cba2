import type { Feature } from '../features.js';
import { INBOX_ROUTES } from './routes.js';
import { markAndTell } from './tell.js';
import { UNREAD_REMINDER_JOB_KIND, unreadReminderHandler, unreadReminderJob } from './unread-reminder.js';

/**
 * The inbox (docs/inbox.md): each recipient's notifications with read, seen and archived state
 * and counts, its routes for a browser and for the back end, what receipts mark (`displayed`
 * seen, `clicked` read), the purge of items past their project's retention, and the reminder of
 * `notify_unread_after`, whose job kind an instance runs beside its others.
 */
export function inbox(): Feature {
  return {
    name: 'inbox',
    install({ options, hub }) {
      const { store, clock } = options;
      const services = { options, hub };
      return {
        routes: INBOX_ROUTES,
        jobs: { [UNREAD_REMINDER_JOB_KIND]: unreadReminderHandler(store, clock) },
        sendJobs({ notification, body }) {
          // A test send makes no inbox item, so reminds of none.
          const afterSeconds = body.notify_unread_after;
          if (afterSeconds == null || notification.mode !== 'live') return null;
          const reminder = unreadReminderJob(notification, afterSeconds);
          return () => [reminder];
        },
        // Before the 202, so that a receipt the browser sends again after a failure marks again.
        async afterReceipts({ browser, receipts, now, requestId }) {
          for (const [type, action] of RECEIPT_MARKS) {
            const attemptIds = receipts.filter((receipt) => receipt.type === type).map((receipt) => receipt.attemptId);
            if (attemptIds.length === 0) continue;
            await markAndTell(
              services,
              {
                projectId: browser.projectId,
                recipient: browser.recipient,
                action,
                target: { browserId: browser.id, attemptIds },
                now,
              },
              requestId,
            );
          }
        },
        async sweep({ now, purge }) {
          if (purge) await store.purgeInbox({ now });
        },
      };
    },
  };
}

/** What receipts do to the recipient's inbox: a `displayed` one marks the item seen, a `clicked` one read. */
const RECEIPT_MARKS = [
  ['displayed', 'seen'],
  ['clicked', 'read'],
] as const;
