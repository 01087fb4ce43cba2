import type {
  AttemptObject,
  NotificationDetail,
  RequestLogObject,
  WebhookMessageAttemptObject,
  WebhookMessageObject,
} from '@tidings/core';

/** Where an entry of a timeline happened: the API, a browser, Web Push, a webhook, the inbox. */
export type TimelineChannel = 'api' | 'browser' | 'push' | 'webhook' | 'inbox';

/** One thing that happened to a notification, at a time, with the page that tells more. */
export interface TimelineEntry {
  /** RFC 3339, to the millisecond. */
  at: string;
  channel: TimelineChannel;
  /** What happened, in a few words: `delivered`, `webhook request: HTTP 500`. */
  what: string;
  /** More: whose, why, how long. */
  detail: string;
  /** The page of what it is about: the request, the browser, the webhook message. */
  href: string | null;
  /** `danger` for what went wrong (a refusal, a failure), `ok` for what went right. */
  tone: 'ok' | 'danger' | 'plain';
}

/** A webhook message about the notification, with its requests, and the page it has. */
export interface TimelineWebhookMessage {
  message: Omit<WebhookMessageObject, 'attempts'>;
  attempts: WebhookMessageAttemptObject[];
  endpointUrl: string;
  href: string;
}

/** What the timeline is made from. */
export interface TimelineSources {
  detail: NotificationDetail;
  /** The requests the log keeps about the notification (its send, counts of reads, inbox marks). */
  requests: RequestLogObject[];
  webhookMessages: TimelineWebhookMessage[];
  /** The path of the project's pages, for the links. */
  root: string;
  /** How an attempt went out, in words: `event stream`, `poll`, `Web Push`. */
  pathLabel: (attempt: AttemptObject) => string | null;
}

/** Channels in the order they sort at one instant: the request before what it caused. */
const CHANNEL_ORDER: Record<TimelineChannel, number> = { api: 0, browser: 1, push: 2, webhook: 3, inbox: 4 };

/** How one webhook request ended, in words that explain it: `HTTP 500`, `a timeout`. */
function webhookOutcome(attempt: WebhookMessageAttemptObject): string {
  if (attempt.status_code !== null) return `HTTP ${attempt.status_code}`;
  if (attempt.outcome === 'timeout') return 'a timeout';
  return attempt.error ? `${attempt.outcome}: ${attempt.error}` : attempt.outcome;
}

/**
 * Everything that happened to one notification, oldest first, across its channels: the request
 * that sent it (and the reads and inbox marks the log keeps), each attempt's acceptance, write to
 * a stream or a poll or acceptance by a Web Push service, its receipts and its end, each webhook
 * message with each of its HTTP requests and their status, and its inbox item's changes.
 */
export function notificationTimeline(sources: TimelineSources): TimelineEntry[] {
  const { detail, root } = sources;
  const { notification } = detail;
  const entries: TimelineEntry[] = [];
  const add = (entry: TimelineEntry | null) => {
    if (entry) entries.push(entry);
  };

  const sendLogged = sources.requests.some((request) => request.id === detail.request.request_id);
  if (!sendLogged) {
    add({
      at: notification.created_at,
      channel: 'api',
      what: 'sent',
      detail: `${notification.mode} mode${detail.request.key ? `, key ${detail.request.key.prefix}…` : ''}`,
      href: detail.request.request_id ? `${root}/requests/${detail.request.request_id}` : null,
      tone: 'plain',
    });
  }
  for (const request of sources.requests) {
    const count = request.path === '/v1/notifications/{id}' ? request.response_body?.text : null;
    let reads: number | null = null;
    if (count) {
      try {
        reads = (JSON.parse(count) as { reads?: number }).reads ?? null;
      } catch {
        reads = null;
      }
    }
    add({
      at: request.created_at,
      channel: 'api',
      what:
        reads !== null
          ? `${reads} ${reads === 1 ? 'read' : 'reads'} by the API`
          : `${request.method} ${request.path.split('?')[0]}: ${request.status}${request.code ? ` ${request.code}` : ''}`,
      detail: `key ${request.key_prefix}…${request.id === detail.request.request_id ? ', the send' : ''}`,
      href: `${root}/requests/${request.id}`,
      tone: request.status >= 400 ? 'danger' : 'plain',
    });
  }

  for (const attempt of notification.attempts) {
    const browser = `${root}/browsers/${attempt.browser_id}`;
    const path = sources.pathLabel(attempt);
    const receipt = (at: string | null, what: string, tone: TimelineEntry['tone'] = 'plain', more = '') =>
      at === null
        ? null
        : {
            at,
            channel: 'browser' as const,
            what,
            detail: `browser ${attempt.browser_id}${more}`,
            href: browser,
            tone,
          };
    add(receipt(attempt.accepted_at, 'attempt accepted', 'plain', notification.mode === 'test' ? ' (test mode)' : ''));
    const pushed = detail.push_requests.some((push) => push.attempt_id === attempt.id);
    if (attempt.sent_at !== null && !pushed) {
      add({
        at: attempt.sent_at,
        channel: path === 'Web Push' ? 'push' : 'browser',
        what:
          path === 'Web Push'
            ? 'accepted by the Web Push service'
            : `written to the browser${path ? ` (${path})` : ''}`,
        detail: `browser ${attempt.browser_id}`,
        href: browser,
        tone: 'plain',
      });
    }
    add(receipt(attempt.delivered_at, 'delivered', 'ok'));
    add(receipt(attempt.displayed_at, 'displayed'));
    add(receipt(attempt.clicked_at, 'clicked'));
    add(receipt(attempt.dismissed_at, 'dismissed'));
    add(receipt(attempt.expired_at, 'expired', 'danger'));
    add(receipt(attempt.failed_at, 'failed', 'danger', attempt.reason ? `: ${attempt.reason}` : ''));
  }

  for (const push of detail.push_requests) {
    const href = `${root}/browsers/${push.browser_id}`;
    const tries = `${push.requests} ${push.requests === 1 ? 'request' : 'requests'} to the push service`;
    add({
      at: push.created_at,
      channel: 'push',
      what: 'Web Push message queued',
      detail: `browser ${push.browser_id}`,
      href,
      tone: 'plain',
    });
    if (push.status === 'accepted' || push.status === 'failed') {
      add({
        at: push.finished_at ?? push.created_at,
        channel: 'push',
        what:
          push.status === 'accepted' ? 'accepted by the Web Push service' : `Web Push: ${push.last_error ?? 'failed'}`,
        detail: `browser ${push.browser_id}, ${tries}`,
        href,
        tone: push.status === 'accepted' ? 'ok' : 'danger',
      });
    } else if (push.last_error !== null) {
      add({
        at: push.created_at,
        channel: 'push',
        what: `Web Push retrying: ${push.last_error}`,
        detail: `browser ${push.browser_id}, ${tries}`,
        href,
        tone: 'danger',
      });
    }
  }

  for (const { message, attempts, endpointUrl, href } of sources.webhookMessages) {
    add({
      at: message.created_at,
      channel: 'webhook',
      what: `webhook ${message.event_type}`,
      detail: `to ${endpointUrl}, ${message.status}`,
      href,
      tone: message.status === 'failed' ? 'danger' : 'plain',
    });
    for (const attempt of attempts) {
      add({
        at: attempt.attempted_at,
        channel: 'webhook',
        what: `webhook request: ${webhookOutcome(attempt)}`,
        detail: `${message.event_type} to ${endpointUrl}, ${attempt.latency_ms} ms`,
        href,
        tone: attempt.outcome === 'succeeded' ? 'ok' : 'danger',
      });
    }
  }

  const item = detail.inbox?.item ?? null;
  if (item) {
    const inbox = (at: string | null, what: string) =>
      at === null
        ? null
        : {
            at,
            channel: 'inbox' as const,
            what,
            detail: `recipient ${notification.recipient}`,
            href: null,
            tone: 'plain' as const,
          };
    add(inbox(item.seen_at, 'seen in the inbox'));
    add(inbox(item.read_at, 'read in the inbox'));
    add(inbox(item.archived_at, 'archived in the inbox'));
  }

  return entries.sort((a, b) => a.at.localeCompare(b.at) || CHANNEL_ORDER[a.channel] - CHANNEL_ORDER[b.channel]);
}
