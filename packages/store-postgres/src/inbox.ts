import {
  DEFAULT_INBOX_RETENTION_DAYS,
  type InboxAction,
  type InboxCounts,
  type InboxItemRecord,
  type InboxStore,
  type InboxTarget,
} from '@tidings/core/store';
import type { Pool } from 'pg';
import { type Queryable, run, type Sql, type Statement, transaction } from './db.js';
import type { RecordWebhookEvents } from './webhook-messages.js';

const NO_COUNTS: InboxCounts = { total: 0, unread: 0, unseen: 0, version: 0 };

/** What each action sets, and which items it changes (the others it leaves as they are). */
const ACTION_SQL: Record<InboxAction, { set: string; changes: string; allScope: string }> = {
  seen: { set: 'seen_at = $3', changes: 'seen_at IS NULL', allScope: 'archived_at IS NULL' },
  read: {
    set: 'read_at = $3, seen_at = coalesce(seen_at, $3)',
    changes: 'read_at IS NULL',
    allScope: 'archived_at IS NULL',
  },
  unread: {
    set: 'read_at = NULL, seen_at = coalesce(seen_at, $3)',
    changes: 'read_at IS NOT NULL',
    allScope: 'archived_at IS NULL',
  },
  archive: {
    set: 'archived_at = $3, seen_at = coalesce(seen_at, $3)',
    changes: 'archived_at IS NULL',
    allScope: 'archived_at IS NULL',
  },
  unarchive: {
    set: 'archived_at = NULL, seen_at = coalesce(seen_at, $3)',
    changes: 'archived_at IS NOT NULL',
    allScope: 'archived_at IS NOT NULL',
  },
};

type TargetKind = 'ids' | 'all' | 'attempts';

function targetKind(target: InboxTarget): TargetKind {
  if ('all' in target) return 'all';
  return 'attemptIds' in target ? 'attempts' : 'ids';
}

/** Each recipient's inbox: items, their state, and the counters the triggers keep (migration 13). */
export function inboxOperations(pool: Pool, sql: Sql, recordEvents: RecordWebhookEvents): InboxStore {
  const { t, statement } = sql;
  const item = `i.notification_id AS "notificationId", i.project_id AS "projectId", i.recipient, n.title, n.body,
    n.url, n.icon, n.tag, n.data, i.created_at AS "createdAt", i.seen_at AS "seenAt", i.read_at AS "readAt",
    i.archived_at AS "archivedAt"`;
  const selectCounts = statement(
    'inbox_counts',
    `SELECT total, unread, unseen, version FROM ${t('inbox_counts')} WHERE project_id = $1 AND recipient = $2`,
  );
  const countsOf = async (db: Queryable, projectId: string, recipient: string): Promise<InboxCounts> => {
    const [row] = await run<InboxCounts>(db, selectCounts, [projectId, recipient]);
    return row ? { total: row.total, unread: row.unread, unseen: row.unseen, version: row.version } : { ...NO_COUNTS };
  };
  const selectPage = statement(
    'inbox_page',
    `SELECT ${item}
       FROM ${t('inbox_items')} AS i JOIN ${t('notifications')} AS n ON n.id = i.notification_id
      WHERE i.project_id = $1 AND i.recipient = $2 AND ($3::text IS NULL OR i.notification_id < $3::text)
        AND (i.archived_at IS NOT NULL) = $4 AND (NOT $5 OR i.read_at IS NULL)
      ORDER BY i.notification_id DESC LIMIT $6`,
  );
  const selectItems = statement(
    'inbox_items_by_id',
    `SELECT ${item}
       FROM ${t('inbox_items')} AS i JOIN ${t('notifications')} AS n ON n.id = i.notification_id
      WHERE i.notification_id = ANY($1::text[])
      ORDER BY i.notification_id DESC`,
  );
  const selectItem = statement(
    'inbox_item',
    `SELECT ${item}
       FROM ${t('inbox_items')} AS i JOIN ${t('notifications')} AS n ON n.id = i.notification_id
      WHERE i.notification_id = $1 AND i.project_id = $2`,
  );
  const selectKnownIds = statement(
    'inbox_known_ids',
    `SELECT notification_id FROM ${t('inbox_items')}
      WHERE project_id = $1 AND recipient = $2 AND notification_id = ANY($3::text[])`,
  );
  const selectConnected = statement(
    'inbox_connected_browsers',
    `SELECT id FROM ${t('browsers')} WHERE project_id = $1 AND recipient = $2 AND connected ORDER BY created_at, id`,
  );
  const scopes: Record<TargetKind, (action: InboxAction) => string> = {
    all: (action) => ACTION_SQL[action].allScope,
    ids: () => 'notification_id = ANY($4::text[])',
    attempts: () =>
      `notification_id IN (SELECT notification_id FROM ${t('attempts')} WHERE browser_id = $5 AND id = ANY($4::text[]))`,
  };
  const marks = new Map<string, Statement>();
  const markStatement = (action: InboxAction, kind: TargetKind): Statement => {
    const key = `${action}_${kind}`;
    let found = marks.get(key);
    if (!found) {
      const { set, changes } = ACTION_SQL[action];
      found = statement(
        `inbox_mark_${key}`,
        `UPDATE ${t('inbox_items')} SET ${set}
          WHERE project_id = $1 AND recipient = $2 AND ${scopes[kind](action)} AND ${changes}
          RETURNING notification_id, read_at`,
      );
      marks.set(key, found);
    }
    return found;
  };
  const remind = statement(
    'inbox_remind',
    `UPDATE ${t('inbox_items')} SET reminded_at = $1
      WHERE notification_id = $2 AND read_at IS NULL AND archived_at IS NULL AND reminded_at IS NULL
      RETURNING recipient, created_at`,
  );
  const selectShortestRetention = statement(
    'inbox_shortest_retention',
    `SELECT min(days) AS days FROM ${t('inbox_retention')}`,
  );
  const purge = statement(
    'inbox_purge',
    `DELETE FROM ${t('inbox_items')} AS i
      WHERE created_at < $1
        AND created_at < $2 - coalesce((SELECT days FROM ${t('inbox_retention')} AS r WHERE r.project_id = i.project_id), $3)
                             * 86400000::int8`,
  );
  const putRetention = statement(
    'inbox_put_retention',
    `INSERT INTO ${t('inbox_retention')} (project_id, days) VALUES ($1, $2)
     ON CONFLICT (project_id) DO UPDATE SET days = excluded.days`,
  );
  const selectRetention = statement(
    'inbox_retention',
    `SELECT days FROM ${t('inbox_retention')} WHERE project_id = $1`,
  );

  return {
    async listInbox({ projectId, recipient, unread, archived, limit, startingAfter }) {
      const [rows, counts] = await Promise.all([
        run<InboxItemRecord>(pool, selectPage, [projectId, recipient, startingAfter, archived, unread, limit + 1]),
        countsOf(pool, projectId, recipient),
      ]);
      return { items: rows.slice(0, limit), hasMore: rows.length > limit, counts };
    },
    getInboxCounts({ projectId, recipient }) {
      return countsOf(pool, projectId, recipient);
    },
    async getInboxItem({ projectId, notificationId }) {
      const [row] = await run<InboxItemRecord>(pool, selectItem, [notificationId, projectId]);
      return row ?? null;
    },
    markInbox({ projectId, recipient, action, target, now }) {
      const kind = targetKind(target);
      const ids = 'ids' in target ? [...target.ids] : 'attemptIds' in target ? [...target.attemptIds] : [];
      const values: unknown[] = [projectId, recipient, now];
      if (kind !== 'all') values.push(ids);
      if (kind === 'attempts') values.push((target as { browserId: string }).browserId);
      return transaction(pool, async (client) => {
        const rows = await run<{ notification_id: string; read_at: number | null }>(
          client,
          markStatement(action, kind),
          values,
        );
        if (action === 'read') {
          await recordEvents(
            client,
            rows.map((row) => ({
              kind: 'inbox-read',
              notificationId: row.notification_id,
              recipient,
              at: row.read_at!,
            })),
            now,
          );
        }
        let notFound: string[] = [];
        if (kind === 'ids') {
          const known = await run<{ notification_id: string }>(client, selectKnownIds, [projectId, recipient, ids]);
          const knownIds = new Set(known.map((row) => row.notification_id));
          notFound = ids.filter((id) => !knownIds.has(id));
        }
        const changed =
          kind === 'all' || rows.length === 0
            ? []
            : await run<InboxItemRecord>(client, selectItems, [rows.map((row) => row.notification_id)]);
        const counts = await countsOf(client, projectId, recipient);
        const connected = await run<{ id: string }>(client, selectConnected, [projectId, recipient]);
        return {
          changed,
          notFound,
          anyChanged: rows.length > 0,
          counts,
          // The statement's trigger raises the version once for the whole mark (migration 13).
          previousVersion: rows.length > 0 ? counts.version - 1 : counts.version,
          browserIds: connected.map((row) => row.id),
        };
      });
    },
    remindUnread({ notificationId, afterSeconds, now }) {
      return transaction(pool, async (client) => {
        const [row] = await run<{ recipient: string; created_at: number }>(client, remind, [now, notificationId]);
        if (!row) return false;
        await recordEvents(
          client,
          [
            {
              kind: 'unread-reminder',
              notificationId,
              recipient: row.recipient,
              createdAt: row.created_at,
              afterSeconds,
            },
          ],
          now,
        );
        return true;
      });
    },
    async purgeInbox({ now }) {
      // Bounded by the shortest retention of any project: the read covers only items that some
      // project's retention may have passed, not every item of the last 90 days at each sweep.
      const [row] = await run<{ days: number | null }>(pool, selectShortestRetention);
      const shortest = Math.min(DEFAULT_INBOX_RETENTION_DAYS, row?.days ?? Number.POSITIVE_INFINITY);
      const result = await pool.query({
        name: purge.name!,
        text: purge.text,
        values: [now - shortest * 86_400_000, now, DEFAULT_INBOX_RETENTION_DAYS],
      });
      return result.rowCount ?? 0;
    },
    async setInboxRetention({ projectId, days }) {
      await run(pool, putRetention, [projectId, days]);
    },
    async getInboxRetention({ projectId }) {
      const [row] = await run<{ days: number }>(pool, selectRetention, [projectId]);
      return row?.days ?? DEFAULT_INBOX_RETENTION_DAYS;
    },
  };
}
