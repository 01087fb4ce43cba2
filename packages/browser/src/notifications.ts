import { withInbox, withPush } from './build-flags.js';
import { type ConnectionState, receipt, report, safely } from './connection-state.js';
import { protocolError } from './errors.js';
import { safeUrl } from './system-notification.js';
import type { TidingsNotification } from './types.js';

/**
 * A notification from the server (`fromServer`), or relayed by the leader tab, which sent its
 * receipt: handed to the app once, whatever the redeliveries.
 */
export const handleNotification = (s: ConnectionState, payload: unknown, fromServer = true) => {
  const notification = payload as TidingsNotification;
  // The payload may be anything, null included: with a string attempt_id it is an object.
  const attemptId = (payload as TidingsNotification | null)?.attempt_id;
  if (typeof attemptId !== 'string') return report(s, protocolError('No attempt_id'));
  if (s.recent.add(attemptId)) {
    safely(s, s.onNotification, notification);
    if (withInbox) s.inboxControl?.notified(notification);
    // One system notification per browser: the tab that got it from the server shows it, through
    // the Notification API when the page already has permission. Where pages cannot construct
    // notifications (Chrome on Android wants a service worker) nothing shows.
    const { host } = s;
    const NotificationApi = host?.Notification;
    if (s.systemNotifications && fromServer && NotificationApi?.permission === 'granted') {
      try {
        const shown = new NotificationApi(notification.title, {
          body: notification.body ?? undefined,
          icon: notification.icon ?? undefined,
          tag: notification.tag ?? undefined,
          data: notification.data,
        });
        shown.onshow = () => receipt(s, 'displayed', attemptId);
        shown.onclick = (event) => {
          event.preventDefault();
          receipt(s, 'clicked', attemptId);
          host!.focus?.();
          const url = safeUrl(notification.url, host!.location?.href);
          if (url) host!.open?.(url, '_blank', 'noopener');
          shown.close();
        };
      } catch {
        // The constructor throws where only service workers may show notifications.
      }
    }
  }
  if (!fromServer) return;
  if (withPush) s.pushControl?.handed(attemptId);
  s.election?.post({ notification });
  // A duplicate still gets its receipt: the server sends again only what it has no receipt for.
  if (s.autoDelivered !== false) receipt(s, 'delivered', attemptId);
};
