import {
  DEFAULT_INBOX_RETENTION_DAYS,
  type InboxAction,
  type InboxCounts,
  type InboxItemRecord,
  type InboxStore,
  type InboxTarget,
  type MarkInboxResult,
} from '@tidings/core/store';
import type Database from 'better-sqlite3';
import type { RecordWebhookEvents } from './webhook-messages.js';

/** A row of an item with its notification's content. */
interface ItemRow {
  notification_id: string;
  project_id: string;
  recipient: string;
  title: string;
  body: string | null;
  url: string | null;
  icon: string | null;
  tag: string | null;
  data: string | null;
  created_at: number;
  seen_at: number | null;
  read_at: number | null;
  archived_at: number | null;
}

function itemFromRow(row: ItemRow): InboxItemRecord {
  return {
    notificationId: row.notification_id,
    projectId: row.project_id,
    recipient: row.recipient,
    title: row.title,
    body: row.body,
    url: row.url,
    icon: row.icon,
    tag: row.tag,
    data: row.data === null ? null : (JSON.parse(row.data) as Record<string, unknown>),
    createdAt: row.created_at,
    seenAt: row.seen_at,
    readAt: row.read_at,
    archivedAt: row.archived_at,
  };
}

const ITEM_COLUMNS = `i.notification_id, i.project_id, i.recipient, n.title, n.body, n.url, n.icon, n.tag, n.data,
  i.created_at, i.seen_at, i.read_at, i.archived_at`;

const NO_COUNTS: InboxCounts = { total: 0, unread: 0, unseen: 0, version: 0 };

/** Past the end of every id: the first page's cursor. */
const AFTER_EVERY_ID = '\uffff';

/** What each action sets, and which items it changes (the others it leaves as they are). */
const ACTION_SQL: Record<InboxAction, { set: string; changes: string; allScope: string }> = {
  seen: { set: 'seen_at = :now', changes: 'seen_at IS NULL', allScope: 'archived_at IS NULL' },
  read: {
    set: 'read_at = :now, seen_at = coalesce(seen_at, :now)',
    changes: 'read_at IS NULL',
    allScope: 'archived_at IS NULL',
  },
  unread: {
    set: 'read_at = NULL, seen_at = coalesce(seen_at, :now)',
    changes: 'read_at IS NOT NULL',
    allScope: 'archived_at IS NULL',
  },
  archive: {
    set: 'archived_at = :now, seen_at = coalesce(seen_at, :now)',
    changes: 'archived_at IS NULL',
    allScope: 'archived_at IS NULL',
  },
  unarchive: {
    set: 'archived_at = NULL, seen_at = coalesce(seen_at, :now)',
    changes: 'archived_at IS NOT NULL',
    allScope: 'archived_at IS NOT NULL',
  },
};

/** Which items of the recipient a target names, as a condition on `inbox_items`. */
const TARGET_SQL = {
  ids: 'notification_id IN (SELECT value FROM json_each(:ids))',
  attempts: `notification_id IN (SELECT notification_id FROM attempts
               WHERE browser_id = :browserId AND id IN (SELECT value FROM json_each(:ids)))`,
};

type TargetKind = 'ids' | 'all' | 'attempts';

function targetKind(target: InboxTarget): TargetKind {
  if ('all' in target) return 'all';
  return 'attemptIds' in target ? 'attempts' : 'ids';
}

/** Each recipient's inbox: items, their state, and the counters the triggers keep (migration 18). */
export function inboxOperations(db: Database.Database, recordEvents: RecordWebhookEvents): InboxStore {
  const selectCounts = db.prepare<[string, string], InboxCounts>(
    'SELECT total, unread, unseen, version FROM inbox_counts WHERE project_id = ? AND recipient = ?',
  );
  const countsOf = (projectId: string, recipient: string): InboxCounts => {
    const row = selectCounts.get(projectId, recipient);
    return row ? { total: row.total, unread: row.unread, unseen: row.unseen, version: row.version } : { ...NO_COUNTS };
  };
  const selectPage = db.prepare<
    { projectId: string; recipient: string; before: string; archived: number; unread: number; limit: number },
    ItemRow
  >(
    `SELECT ${ITEM_COLUMNS}
       FROM inbox_items AS i JOIN notifications AS n ON n.id = i.notification_id
      WHERE i.project_id = :projectId AND i.recipient = :recipient AND i.notification_id < :before
        AND (i.archived_at IS NOT NULL) = :archived AND (:unread = 0 OR i.read_at IS NULL)
      ORDER BY i.notification_id DESC LIMIT :limit`,
  );
  const selectItems = db.prepare<[string], ItemRow>(
    `SELECT ${ITEM_COLUMNS}
       FROM inbox_items AS i JOIN notifications AS n ON n.id = i.notification_id
      WHERE i.notification_id IN (SELECT value FROM json_each(?))
      ORDER BY i.notification_id DESC`,
  );
  const selectItem = db.prepare<[string, string], ItemRow>(
    `SELECT ${ITEM_COLUMNS}
       FROM inbox_items AS i JOIN notifications AS n ON n.id = i.notification_id
      WHERE i.notification_id = ? AND i.project_id = ?`,
  );
  const selectKnownIds = db
    .prepare<[string, string, string], string>(
      `SELECT notification_id FROM inbox_items
        WHERE project_id = ? AND recipient = ? AND notification_id IN (SELECT value FROM json_each(?))`,
    )
    .pluck();
  const selectConnected = db
    .prepare<[string, string], string>(
      'SELECT id FROM browsers WHERE project_id = ? AND recipient = ? AND connected = 1 ORDER BY created_at, id',
    )
    .pluck();
  const marks = new Map<string, Database.Statement>();
  const markStatement = (action: InboxAction, kind: TargetKind): Database.Statement => {
    const key = `${action}:${kind}`;
    let statement = marks.get(key);
    if (!statement) {
      const { set, changes, allScope } = ACTION_SQL[action];
      const scope = kind === 'all' ? allScope : TARGET_SQL[kind];
      statement = db.prepare(
        `UPDATE inbox_items SET ${set}
          WHERE project_id = :projectId AND recipient = :recipient AND ${scope} AND ${changes}
          RETURNING notification_id, read_at`,
      );
      marks.set(key, statement);
    }
    return statement;
  };
  const remind = db.prepare<[number, string], { project_id: string; recipient: string; created_at: number }>(
    `UPDATE inbox_items SET reminded_at = ?
      WHERE notification_id = ? AND read_at IS NULL AND archived_at IS NULL AND reminded_at IS NULL
      RETURNING project_id, recipient, created_at`,
  );
  const selectShortestRetention = db.prepare<[], number | null>('SELECT min(days) FROM inbox_retention').pluck();
  const purge = db.prepare<[number, number, number]>(
    `DELETE FROM inbox_items
      WHERE created_at < ?
        AND created_at < ? - coalesce((SELECT days FROM inbox_retention AS r WHERE r.project_id = inbox_items.project_id), ?)
                             * 86400000`,
  );
  const putRetention = db.prepare<[string, number]>(
    'INSERT INTO inbox_retention (project_id, days) VALUES (?, ?) ON CONFLICT (project_id) DO UPDATE SET days = excluded.days',
  );
  const selectRetention = db.prepare<[string], number>('SELECT days FROM inbox_retention WHERE project_id = ?').pluck();

  const mark = db.transaction((input: Parameters<InboxStore['markInbox']>[0]): MarkInboxResult => {
    const { projectId, recipient, action, target, now } = input;
    const kind = targetKind(target);
    const ids = 'ids' in target ? target.ids : 'attemptIds' in target ? target.attemptIds : [];
    const idsJson = JSON.stringify(ids);
    const rows = markStatement(action, kind).all({
      projectId,
      recipient,
      now,
      ...(kind === 'all' ? {} : { ids: idsJson }),
      ...(kind === 'attempts' ? { browserId: (target as { browserId: string }).browserId } : {}),
    }) as { notification_id: string; read_at: number | null }[];
    if (action === 'read') {
      recordEvents(
        rows.map((row) => ({ kind: 'inbox-read', notificationId: row.notification_id, recipient, at: row.read_at! })),
        now,
      );
    }
    let notFound: string[] = [];
    if (kind === 'ids') {
      const known = new Set(selectKnownIds.all(projectId, recipient, idsJson));
      notFound = ids.filter((id) => !known.has(id));
    }
    const changed =
      kind === 'all' || rows.length === 0
        ? []
        : selectItems.all(JSON.stringify(rows.map((row) => row.notification_id))).map(itemFromRow);
    const counts = countsOf(projectId, recipient);
    return {
      changed,
      notFound,
      anyChanged: rows.length > 0,
      counts,
      // The triggers raise the version once for each item changed (migration 18).
      previousVersion: counts.version - rows.length,
      browserIds: selectConnected.all(projectId, recipient),
    };
  });
  const remindOnce = db.transaction((notificationId: string, afterSeconds: number, now: number): boolean => {
    const row = remind.get(now, notificationId);
    if (!row) return false;
    recordEvents(
      [{ kind: 'unread-reminder', notificationId, recipient: row.recipient, createdAt: row.created_at, afterSeconds }],
      now,
    );
    return true;
  });

  return {
    async listInbox({ projectId, recipient, unread, archived, limit, startingAfter }) {
      const rows = selectPage.all({
        projectId,
        recipient,
        before: startingAfter ?? AFTER_EVERY_ID,
        archived: archived ? 1 : 0,
        unread: unread ? 1 : 0,
        limit: limit + 1,
      });
      return {
        items: rows.slice(0, limit).map(itemFromRow),
        hasMore: rows.length > limit,
        counts: countsOf(projectId, recipient),
      };
    },
    async getInboxCounts({ projectId, recipient }) {
      return countsOf(projectId, recipient);
    },
    async getInboxItem({ projectId, notificationId }) {
      const row = selectItem.get(notificationId, projectId);
      return row ? itemFromRow(row) : null;
    },
    async markInbox(input) {
      return mark.immediate(input);
    },
    async remindUnread({ notificationId, afterSeconds, now }) {
      return remindOnce.immediate(notificationId, afterSeconds, now);
    },
    async purgeInbox({ now }) {
      // Bounded by the shortest retention of any project: the read covers only items that some
      // project's retention may have passed, not every item of the last 90 days at each sweep.
      const shortest = Math.min(
        DEFAULT_INBOX_RETENTION_DAYS,
        selectShortestRetention.get() ?? Number.POSITIVE_INFINITY,
      );
      return purge.run(now - shortest * 86_400_000, now, DEFAULT_INBOX_RETENTION_DAYS).changes;
    },
    async setInboxRetention({ projectId, days }) {
      putRetention.run(projectId, days);
    },
    async getInboxRetention({ projectId }) {
      return selectRetention.get(projectId) ?? DEFAULT_INBOX_RETENTION_DAYS;
    },
  };
}
