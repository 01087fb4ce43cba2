import type { TidingsHost } from './options.js';
import type { TidingsNotification } from './types.js';

/** The notification's `url` resolved against the page, if it is http(s); anything else is not opened. */
export function safeUrl(url: string | null, pageUrl: string | undefined): string | null {
  if (!url) return null;
  try {
    const resolved = new URL(url, pageUrl);
    return /^https?:$/.test(resolved.protocol) ? resolved.href : null;
  } catch {
    return null;
  }
}

/**
 * Shows a notification through the Notification API when the page already has permission. Where
 * pages cannot construct notifications (Chrome on Android wants a service worker) nothing shows.
 */
export function showSystemNotification(
  host: TidingsHost | null,
  notification: TidingsNotification,
  /** Sends the notification's receipts. */
  receipt: (type: 'displayed' | 'clicked') => void,
): void {
  const NotificationApi = host?.Notification;
  if (!host || !NotificationApi || NotificationApi.permission !== 'granted') return;
  try {
    const shown = new NotificationApi(notification.title, {
      body: notification.body ?? undefined,
      icon: notification.icon ?? undefined,
      tag: notification.tag ?? undefined,
      data: notification.data,
    });
    shown.onshow = () => receipt('displayed');
    shown.onclick = (event) => {
      event.preventDefault();
      receipt('clicked');
      host.focus?.();
      const url = safeUrl(notification.url, host.location?.href);
      if (url) host.open?.(url, '_blank', 'noopener');
      shown.close();
    };
  } catch {
    // The constructor throws where only service workers may show notifications.
  }
}
