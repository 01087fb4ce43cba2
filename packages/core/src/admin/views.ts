import {
  type ApiKeyObject,
  apiKeyObject,
  isoTime,
  type NotificationObject,
  notificationObject,
  type ProjectObject,
  projectObject,
} from '../delivery/serialize.js';
import type { FeatureSettings } from '../features.js';
import { type InboxCountsObject, type InboxItemObject, inboxCountsObject, inboxItemObject } from '../inbox/objects.js';
import type { ResolvedOptionsWith } from '../options.js';
import { TidingsError } from '../pipeline/errors.js';
import type { Clock } from '../ports/clock.js';
import type { Limiter } from '../ports/limiter.js';
import type { AttemptPath, KeyMode, NotificationRecord, UsageBreakdownDay } from '../ports/records.js';
import type {
  AccountStore,
  ApiKeyStore,
  InboxStore,
  JobStore,
  NotificationStore,
  ProjectAdminStore,
  UsageStore,
} from '../ports/store.js';
import { PUSH_JOB_KIND, pushJobKey } from '../push/send-jobs.js';
import { DEFAULT_REQUEST_LOG_RETENTION_DAYS } from '../request-log/store.js';
import type { WatchedHub } from '../shared/hub/watched-hub.js';
import { isId } from '../shared/ids.js';

/** What an instance enforces and how it tells time, for a page that shows or needs it. */
export interface AdminSettings {
  /** The projects an account may hold. */
  maxProjectsPerAccount: number;
  /** The active keys a project may hold. */
  maxActiveKeysPerProject: number;
  /** Proxy hops believed in `X-Forwarded-For`. */
  trustProxy: number;
  /** The public origin of the server; null when requests tell it. */
  publicUrl: string | null;
  /** The clock the instance runs on. */
  clock: Clock;
  /**
   * The limiter the instance counts requests with (Redis behind several instances): a host's own
   * limits (the dashboard's sign-in throttling) count there too, under keys of their own, so
   * that they hold across instances and restarts wherever the API's limits do.
   */
  limiter: Limiter;
  /** Whether API requests are logged (docs/api.md#request-log), and the days entries are kept. */
  requestLog: { enabled: boolean; retentionDays: number };
  /**
   * Whether the secrets Tidings must keep usable (webhook signing secrets, the VAPID private key)
   * are sealed in the store under a secrets key (docs/deploy.md#secrets-at-rest).
   */
  secretsSealed: boolean;
}

/** Filters of {@link AdminViews.listNotifications}. */
export interface ListNotificationsOptions {
  /** Only sends older than this one: the last id of the previous page. */
  before?: string;
  /** At most this many, 1 to 100. @default 25 */
  limit?: number;
  /** Only sends to this recipient. */
  recipient?: string;
  /** Only sends of this mode. */
  mode?: KeyMode;
}

/** The longest search text {@link AdminViews.searchProjects} takes, in characters. */
export const MAX_SEARCH_QUERY_LENGTH = 200;

/** Options of {@link AdminViews.searchProjects}. */
export interface SearchProjectsOptions {
  /**
   * Only projects whose name or id, or whose account's email, contains this text, ignoring case
   * (ASCII letters); `%` and `_` match themselves. Empty or absent: every project.
   */
  query?: string;
  /** How many matches to skip, 0 to 1,000,000. @default 0 */
  offset?: number;
  /** At most this many, 1 to 100. @default 50 */
  limit?: number;
}

/** A page of {@link AdminViews.searchProjects}: the projects with their account's email, and how many match. */
export interface ProjectSearchPage {
  projects: { project: ProjectObject; accountEmail: string }[];
  /** Every match, on this page or not. */
  total: number;
}

/**
 * One send as a dashboard shows it when debugging: the public notification object and the
 * request that made it. `recorded` is false for sends stored before the request was kept: then
 * every other field of `request` is null and means "not recorded", not "none".
 */
export interface NotificationDetail {
  notification: NotificationObject;
  request: {
    recorded: boolean;
    /** The id of the key that sent it. */
    key_id: string | null;
    /** That key without its secret (prefix and name); null when unknown or not recorded. */
    key: ApiKeyObject | null;
    /** The `Request-Id` of the POST that created it. */
    request_id: string | null;
    /** The request's `Idempotency-Key`; null when it had none (or when not recorded). */
    idempotency_key: string | null;
  };
  /**
   * Per attempt id, the path it went out by: its browser's event stream or its poll; null while
   * not sent, when its `delivered` receipt came before the record of sending, or when sent before
   * this was kept.
   */
  attempt_paths: Record<string, AttemptPath | null>;
  /**
   * The notification as an item of its recipient's inbox (docs/inbox.md), with the recipient's
   * counts now and the project's retention; null in test mode. `item` is null once the item is
   * past retention.
   */
  inbox: { item: InboxItemObject | null; counts: InboxCountsObject; retention_days: number } | null;
  /**
   * Its Web Push messages, one per attempt of a subscribed browser (docs/web-push.md): how many
   * requests the push service was sent and how the last one ended (`accepted`, or the push
   * service's answer, such as `push service answered 429`); empty without Web Push.
   */
  push_requests: PushRequestObject[];
}

/** The Web Push message of one attempt, as its job ran it. */
export interface PushRequestObject {
  attempt_id: string;
  browser_id: string;
  /** `pending` (waiting, maybe for a retry), `running`, `accepted` (the push service took it), `failed`. */
  status: 'pending' | 'running' | 'accepted' | 'failed';
  /** Requests made to the push service so far. */
  requests: number;
  /** The push service's answer to the last refused request, or why it was not sent. */
  last_error: string | null;
  created_at: string;
  /** When it was accepted or given up. */
  finished_at: string | null;
}

/** Attempts whose Web Push messages a notification's detail reads, at most. */
const PUSH_REQUEST_ATTEMPTS = 20;

/** One UTC day of {@link UsageBreakdown}: live and test sends apart, with their attempts' fates. */
export interface UsageBreakdownDayObject {
  date: string;
  live: { notifications: number; attempts: number; sent: number; delivered: number };
  test: { notifications: number; attempts: number; sent: number; delivered: number };
}

/** A project's sends per UTC day over a range of days, live and test apart, every day listed. */
export interface UsageBreakdown {
  project_id: string;
  from: string;
  to: string;
  days: UsageBreakdownDayObject[];
  total: UsageBreakdownDayObject['live'] & { test_notifications: number };
}

/** At most this many days in one {@link AdminViews.getUsageBreakdown}. */
export const MAX_USAGE_RANGE_DAYS = 366;

/**
 * The reads a dashboard's pages need beyond the operations of docs/api.md: every project (for
 * operators), one key, the log of sends, the instance's settings, and a wake-up on each message
 * of the hub. Part of {@link AdminApi}; a new page that needs core data adds its read here.
 */
export interface AdminViews {
  /** Every project of every account, oldest first: the operators' view. */
  listAllProjects(): Promise<ProjectObject[]>;
  /** A page of every account's projects, oldest first, maybe only those matching a text: the operators' search. */
  searchProjects(options?: SearchProjectsOptions): Promise<ProjectSearchPage>;
  /** One key, without its secret; NOT_FOUND when unknown. */
  getKey(keyId: string): Promise<ApiKeyObject>;
  /** A page of a project's sends with their attempts, newest first (ids sort by time). */
  listNotifications(projectId: string, options?: ListNotificationsOptions): Promise<NotificationObject[]>;
  /** One send of a project with its attempts; NOT_FOUND when it is not the project's. */
  getNotification(projectId: string, notificationId: string): Promise<NotificationObject>;
  /** One send with the request that made it (key, request id, Idempotency-Key); NOT_FOUND like getNotification. */
  getNotificationDetail(projectId: string, notificationId: string): Promise<NotificationDetail>;
  /**
   * The project's sends per UTC day from `from` to `to` (`YYYY-MM-DD`, both included, at most
   * {@link MAX_USAGE_RANGE_DAYS} days), live and test apart, with the attempts sent and delivered:
   * read from the log of sends, every day of the range listed. VALIDATION_FAILED for a date that
   * is not a real day, or `from` after `to`, or a longer range.
   */
  getUsageBreakdown(projectId: string, range: { from: string; to: string }): Promise<UsageBreakdown>;
  /** The limits, proxy trust, public URL and clock this instance runs with. */
  readonly settings: AdminSettings;
  /**
   * Calls `listener` on every message this instance publishes on its hub (a send went out, a
   * browser closed) and on every message its hub carries here, so that a live view re-reads at
   * once; returns the unsubscribe.
   */
  watch(listener: () => void): () => void;
}

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** Epoch ms of a `YYYY-MM-DD` UTC day; null unless it is a real calendar day. */
function parseDay(value: unknown): number | null {
  if (typeof value !== 'string' || !DAY_PATTERN.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) return null;
  return ms;
}

function emptyFigures() {
  return { notifications: 0, attempts: 0, sent: 0, delivered: 0 };
}

function breakdownDays(from: number, to: number, rows: UsageBreakdownDay[]): UsageBreakdownDayObject[] {
  const days: UsageBreakdownDayObject[] = [];
  const byDate = new Map<string, UsageBreakdownDayObject>();
  for (let at = from; at <= to; at += DAY_MS) {
    const day = { date: new Date(at).toISOString().slice(0, 10), live: emptyFigures(), test: emptyFigures() };
    days.push(day);
    byDate.set(day.date, day);
  }
  for (const row of rows) {
    const day = byDate.get(row.day);
    if (!day) continue;
    const figures = day[row.mode];
    figures.notifications += row.notifications;
    figures.attempts += row.attempts;
    figures.sent += row.sent;
    figures.delivered += row.delivered;
  }
  return days;
}

// Avoids importing admin/api.ts, which spreads these views into the admin API.
function notFound(kind: string, id: string): TidingsError {
  return new TidingsError('NOT_FOUND', `No ${kind} with id ${id}`);
}

function invalid(path: string, message: string): TidingsError {
  return new TidingsError('VALIDATION_FAILED', message, { errors: [{ path, message }] });
}

/** Builds the admin API's page reads over the resolved options' store and the instance's hub. */
export function createAdminViews(
  options: ResolvedOptionsWith<
    AccountStore &
      ApiKeyStore &
      InboxStore &
      Pick<JobStore, 'listJobs'> &
      NotificationStore &
      ProjectAdminStore &
      UsageStore
  >,
  hub: WatchedHub,
  limiter: Limiter,
  features: FeatureSettings,
): AdminViews {
  const { store } = options;
  /** The push jobs of these attempts: each attempt of a subscribed browser has one, keyed by its browser. */
  async function pushRequestsOf(
    projectId: string,
    attempts: readonly { id: string; browserId: string }[],
  ): Promise<PushRequestObject[]> {
    const found: PushRequestObject[] = [];
    for (const attempt of attempts.slice(0, PUSH_REQUEST_ATTEMPTS)) {
      const jobs = await store.listJobs({
        projectId,
        kind: PUSH_JOB_KIND,
        key: pushJobKey(attempt.browserId),
        limit: 50,
      });
      for (const job of jobs) {
        if ((job.payload as { attemptId?: unknown } | null)?.attemptId !== attempt.id) continue;
        found.push({
          attempt_id: attempt.id,
          browser_id: attempt.browserId,
          status: job.status === 'done' ? 'accepted' : job.status,
          requests: job.attempts,
          last_error: job.lastError,
          created_at: isoTime(job.createdAt),
          finished_at: isoTime(job.finishedAt),
        });
      }
    }
    return found;
  }
  return {
    async listAllProjects() {
      return (await store.listAllProjects()).map(projectObject);
    },
    async searchProjects({ query = '', offset = 0, limit = 50 } = {}) {
      if (typeof query !== 'string' || query.length > MAX_SEARCH_QUERY_LENGTH) {
        throw invalid('q', `must be at most ${MAX_SEARCH_QUERY_LENGTH} characters`);
      }
      if (!Number.isInteger(offset) || offset < 0 || offset > 1_000_000)
        throw invalid('offset', 'must be 0 to 1000000');
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'must be 1 to 100');
      const text = query.trim();
      const found = await store.searchProjects({ query: text === '' ? null : text, offset, limit });
      return {
        projects: found.projects.map(({ project, accountEmail }) => ({
          project: projectObject(project),
          accountEmail,
        })),
        total: found.total,
      };
    },
    async getKey(keyId) {
      const key = await store.getApiKey(keyId);
      if (!key) throw notFound('api key', keyId);
      return apiKeyObject(key);
    },
    async listNotifications(projectId, { before, limit = 25, recipient, mode } = {}) {
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'must be 1 to 100');
      if (before !== undefined && !isId('ntf', before)) throw invalid('before', 'must be a notification id');
      if (mode !== undefined && mode !== 'live' && mode !== 'test') throw invalid('mode', 'must be live or test');
      if (!(await store.getProject(projectId))) throw notFound('project', projectId);
      const items = await store.listNotifications({
        projectId,
        beforeId: before ?? null,
        limit,
        recipient: recipient ?? null,
        mode: mode ?? null,
      });
      return items.map(notificationObject);
    },
    async getNotification(projectId, notificationId) {
      const found = isId('ntf', notificationId) ? await store.getNotification({ projectId, id: notificationId }) : null;
      if (!found) throw notFound('notification', notificationId);
      return notificationObject(found);
    },
    async getNotificationDetail(projectId, notificationId) {
      const inboxOf = async ({ projectId, id, recipient }: NotificationRecord) => {
        const [item, counts, retentionDays] = await Promise.all([
          store.getInboxItem({ projectId, notificationId: id }),
          store.getInboxCounts({ projectId, recipient }),
          store.getInboxRetention({ projectId }),
        ]);
        return {
          item: item && inboxItemObject(item),
          counts: inboxCountsObject(counts),
          retention_days: retentionDays,
        };
      };
      const found = isId('ntf', notificationId) ? await store.getNotification({ projectId, id: notificationId }) : null;
      if (!found) throw notFound('notification', notificationId);
      const { apiKeyId, requestId, idempotencyKey } = found.notification;
      const key = apiKeyId === null ? null : await store.getApiKey(apiKeyId);
      return {
        notification: notificationObject(found),
        request: {
          recorded: requestId !== null,
          key_id: apiKeyId,
          key: key && key.projectId === projectId ? apiKeyObject(key) : null,
          request_id: requestId,
          idempotency_key: idempotencyKey,
        },
        attempt_paths: Object.fromEntries(found.attempts.map((attempt) => [attempt.id, attempt.sentVia])),
        inbox: found.notification.mode === 'test' ? null : await inboxOf(found.notification),
        push_requests: found.notification.mode === 'test' ? [] : await pushRequestsOf(projectId, found.attempts),
      };
    },
    async getUsageBreakdown(projectId, range) {
      const from = parseDay(range?.from);
      const to = parseDay(range?.to);
      if (from === null) throw invalid('from', 'must be a date, YYYY-MM-DD');
      if (to === null) throw invalid('to', 'must be a date, YYYY-MM-DD');
      if (from > to) throw invalid('from', 'must not be after to');
      if ((to - from) / DAY_MS + 1 > MAX_USAGE_RANGE_DAYS) {
        throw invalid('to', `must be at most ${MAX_USAGE_RANGE_DAYS} days after from, both included`);
      }
      if (!(await store.getProject(projectId))) throw notFound('project', projectId);
      const rows = await store.getUsageBreakdown({ projectId, from, to: to + DAY_MS });
      const days = breakdownDays(from, to, rows);
      const total = { ...emptyFigures(), test_notifications: 0 };
      for (const day of days) {
        total.notifications += day.live.notifications;
        total.attempts += day.live.attempts;
        total.sent += day.live.sent;
        total.delivered += day.live.delivered;
        total.test_notifications += day.test.notifications;
      }
      return { project_id: projectId, from: range.from, to: range.to, days, total };
    },
    settings: {
      maxProjectsPerAccount: options.maxProjectsPerAccount,
      maxActiveKeysPerProject: options.maxActiveKeysPerProject,
      trustProxy: options.trustProxy,
      publicUrl: options.publicUrl,
      clock: options.clock,
      limiter,
      // Without the request log nothing is recorded, and nothing is deleted on its schedule.
      requestLog: features.requestLog ?? { enabled: false, retentionDays: DEFAULT_REQUEST_LOG_RETENTION_DAYS },
      secretsSealed: options.sealer.sealingKeyId !== null,
    },
    watch(listener) {
      return hub.watch(listener);
    },
  };
}
