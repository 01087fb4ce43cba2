import { type AttemptObject, attemptObject, isoTime } from '../delivery/serialize.js';
import { type InboxCountsObject, inboxCountsObject } from '../inbox/objects.js';
import { TidingsError } from '../pipeline/errors.js';
import type { BrowserConnectedBy, BrowserView, DisconnectReason, KeyMode } from '../ports/records.js';
import type { AccountStore, BrowserStore, InboxStore, ProjectAdminStore } from '../ports/store.js';
import { isId } from '../shared/ids.js';

/** What a recipient id may be (docs/api.md): 1 to 128 of `A-Z a-z 0-9 _ - . : @`. */
const RECIPIENT_PATTERN = /^[A-Za-z0-9_\-.:@]{1,128}$/;

/** The browsers {@link RecipientViews.getRecipient} lists, newest first. */
export const RECIPIENT_BROWSERS_SHOWN = 50;

/** The sends of its recipient that {@link RecipientViews.getBrowser} reads for one page of a browser's attempts. */
export const BROWSER_ATTEMPTS_SCAN = 100;

/**
 * A browser as a dashboard shows it. Its push subscription appears as the push service's origin
 * only: the endpoint's path and the subscription's keys are capabilities, never shown.
 */
export interface BrowserObject {
  object: 'browser';
  id: string;
  recipient: string;
  connected: boolean;
  disconnect_reason: DisconnectReason | null;
  /** How it registered: `stream` (GET /v1/connect) or `poll` (POST); null when not recorded. */
  connected_by: BrowserConnectedBy | null;
  /** An instance holds an open event stream of it, as the instances last recorded. */
  stream_open: boolean;
  /** The origin of its push subscription's service (`https://fcm.googleapis.com`), or null. */
  push_service: string | null;
  /** The `User-Agent` it registered with (at most 256 characters); null when not recorded. */
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  disconnected_at: string | null;
}

/** A recipient of a project: its newest browsers and its inbox's counts. */
export interface RecipientDetail {
  object: 'recipient';
  id: string;
  project_id: string;
  /** When its first connect token was minted. */
  created_at: string;
  /** Its newest {@link RECIPIENT_BROWSERS_SHOWN} browsers, connected or not, newest first. */
  browsers: BrowserObject[];
  /** It has more browsers than are listed. */
  has_more_browsers: boolean;
  inbox: InboxCountsObject;
}

/** A recipient as a list of a project's recipients shows it. */
export interface RecipientSummaryObject {
  object: 'recipient_summary';
  id: string;
  /** When its first connect token was minted. */
  created_at: string;
  /** How many of its browsers are connected now. */
  connected_browsers: number;
}

/** Options of {@link RecipientViews.listRecipients}. */
export interface ListRecipientsOptions {
  /** Only recipients whose id sorts after this one: the last id of the previous page. */
  after?: string;
  /** At most this many, 1 to 100. @default 25 */
  limit?: number;
}

/** One attempt of a browser, with the send it belongs to. */
export interface BrowserAttemptObject {
  notification: { id: string; title: string; mode: KeyMode; created_at: string };
  attempt: AttemptObject;
}

/** A browser and a page of its attempts, newest first. */
export interface BrowserDetail {
  browser: BrowserObject;
  /** Its attempts among the {@link BROWSER_ATTEMPTS_SCAN} sends of its recipient read for this page. */
  attempts: BrowserAttemptObject[];
  /** The `before` of the next page (the oldest send read), or null when no older send is left. */
  next_before: string | null;
}

/** The reads of a project's recipients and browsers: part of the admin API. */
export interface RecipientViews {
  /**
   * A page of a project's recipients, in the order of their ids' bytes (`Z` before `a`), each
   * with its connected browsers; NOT_FOUND for an unknown project, VALIDATION_FAILED for an
   * `after` no recipient can have or a `limit` out of range.
   */
  listRecipients(projectId: string, options?: ListRecipientsOptions): Promise<RecipientSummaryObject[]>;
  /** A recipient of a project; NOT_FOUND when it has none of this id, VALIDATION_FAILED for an id no recipient can have. */
  getRecipient(projectId: string, recipient: string): Promise<RecipientDetail>;
  /**
   * A browser of a project with its attempts, newest first, read from its recipient's sends
   * older than `before` ({@link BROWSER_ATTEMPTS_SCAN} of them a page); NOT_FOUND when unknown
   * or another project's.
   */
  getBrowser(projectId: string, browserId: string, options?: { before?: string }): Promise<BrowserDetail>;
}

/** The origin of a push endpoint, or null for one that is no URL. */
function pushServiceOf(endpoint: string | null): string | null {
  if (endpoint === null) return null;
  try {
    return new URL(endpoint).origin;
  } catch {
    return null;
  }
}

/** What a dashboard shows of a browser. */
export function browserObject(view: BrowserView): BrowserObject {
  const { browser } = view;
  return {
    object: 'browser',
    id: browser.id,
    recipient: browser.recipient,
    connected: browser.connected,
    disconnect_reason: browser.disconnectReason,
    connected_by: view.connectedBy,
    stream_open: view.streamOpen,
    push_service: pushServiceOf(view.pushEndpoint),
    user_agent: view.userAgent,
    created_at: isoTime(browser.createdAt),
    last_seen_at: isoTime(browser.lastSeenAt),
    disconnected_at: isoTime(browser.disconnectedAt),
  };
}

function notFound(kind: string, id: string): TidingsError {
  return new TidingsError('NOT_FOUND', `No ${kind} ${id} in this project`);
}

function invalid(path: string, message: string): TidingsError {
  return new TidingsError('VALIDATION_FAILED', `${path} ${message}`, { errors: [{ path, message }] });
}

/** Whether a value is an id a recipient can have. */
function isRecipientId(value: unknown): value is string {
  return typeof value === 'string' && RECIPIENT_PATTERN.test(value);
}

/** Builds the reads of recipients and browsers over the store. */
export function createRecipientViews(
  store: AccountStore & BrowserStore & InboxStore & ProjectAdminStore,
): RecipientViews {
  return {
    async listRecipients(projectId, { after, limit = 25 } = {}) {
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'must be 1 to 100');
      if (after !== undefined && !isRecipientId(after)) throw invalid('after', 'must be a recipient id');
      if (!(await store.getProject(projectId))) throw new TidingsError('NOT_FOUND', `No project with id ${projectId}`);
      const found = await store.listRecipients({ projectId, afterRecipient: after ?? null, limit });
      return found.map((item) => ({
        object: 'recipient_summary',
        id: item.recipient,
        created_at: isoTime(item.createdAt),
        connected_browsers: item.connectedBrowsers,
      }));
    },
    async getRecipient(projectId, recipient) {
      if (!isRecipientId(recipient)) {
        const message = 'must be 1 to 128 of A-Z a-z 0-9 _ - . : @';
        throw new TidingsError('VALIDATION_FAILED', `A recipient id ${message}`, {
          errors: [{ path: 'recipient', message }],
        });
      }
      const found = await store.listRecipientBrowsers({ projectId, recipient, limit: RECIPIENT_BROWSERS_SHOWN + 1 });
      if (!found) throw notFound('recipient', recipient);
      const counts = await store.getInboxCounts({ projectId, recipient });
      return {
        object: 'recipient',
        id: recipient,
        project_id: projectId,
        created_at: isoTime(found.createdAt),
        browsers: found.browsers.slice(0, RECIPIENT_BROWSERS_SHOWN).map(browserObject),
        has_more_browsers: found.browsers.length > RECIPIENT_BROWSERS_SHOWN,
        inbox: inboxCountsObject(counts),
      };
    },
    async getBrowser(projectId, browserId, { before } = {}) {
      if (before !== undefined && !isId('ntf', before)) {
        throw new TidingsError('VALIDATION_FAILED', 'before must be a notification id', {
          errors: [{ path: 'before', message: 'must be a notification id' }],
        });
      }
      const view = isId('brw', browserId) ? await store.getBrowserView({ projectId, browserId }) : null;
      if (!view) throw notFound('browser', browserId);
      const sends = await store.listNotifications({
        projectId,
        beforeId: before ?? null,
        limit: BROWSER_ATTEMPTS_SCAN,
        recipient: view.browser.recipient,
        mode: null,
      });
      const attempts: BrowserAttemptObject[] = [];
      for (const { notification, attempts: all } of sends) {
        for (const attempt of all) {
          if (attempt.browserId !== browserId) continue;
          attempts.push({
            notification: {
              id: notification.id,
              title: notification.title,
              mode: notification.mode,
              created_at: isoTime(notification.createdAt),
            },
            attempt: attemptObject(attempt),
          });
        }
      }
      const next = sends.length === BROWSER_ATTEMPTS_SCAN ? (sends[sends.length - 1]?.notification.id ?? null) : null;
      return { browser: browserObject(view), attempts, next_before: next };
    },
  };
}
