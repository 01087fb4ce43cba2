import type { NewJob } from '../ports/jobs.js';
import type { NotificationWithAttempts } from '../ports/records.js';

/** The job kind that sends one attempt as a Web Push message (docs/web-push.md). */
export const PUSH_JOB_KIND = 'push';

/** What a push job carries: the attempt, and where to find it. */
export interface PushJobPayload {
  attemptId: string;
  notificationId: string;
  browserId: string;
}

/**
 * The ordering key of a browser's push jobs: one browser's messages go out one at a time, in the
 * order of its attempts, as its stream would have carried them.
 */
export function pushJobKey(browserId: string): string {
  return `push:${browserId}`;
}

/**
 * One push job per live attempt whose browser has a push subscription, due `graceMs` after the
 * send: an open tab confirms delivery over its stream within the grace, and the job then sends
 * nothing.
 */
export function pushJobsForSend(
  created: NotificationWithAttempts,
  subscribedBrowserIds: ReadonlySet<string>,
  graceMs: number,
): NewJob[] {
  const { notification } = created;
  if (notification.mode !== 'live' || subscribedBrowserIds.size === 0) return [];
  const jobs: NewJob[] = [];
  for (const attempt of created.attempts) {
    if (!subscribedBrowserIds.has(attempt.browserId)) continue;
    const payload: PushJobPayload = {
      attemptId: attempt.id,
      notificationId: notification.id,
      browserId: attempt.browserId,
    };
    jobs.push({
      kind: PUSH_JOB_KIND,
      key: pushJobKey(attempt.browserId),
      projectId: notification.projectId,
      payload,
      runAt: notification.createdAt + graceMs,
    });
  }
  return jobs;
}
