import type { UsageBreakdownDay, UsageDay } from '@tidings/core';
import { idTimeFloor, type NotificationStore, type UsageStore, utcDay } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { createGroupCommit, type GroupCommit } from './group-commit.js';
import type { GroupRead } from './group-read.js';
import type { NotificationCache } from './notification-cache.js';
import { NOTIFICATION_WITH_ATTEMPTS_COLUMNS, notificationFromRawRows, type RawNotificationRow } from './rows.js';
import { type ConnectedBrowsers, type SendLedger, type SendStatements, writeSend } from './send-statements.js';

type NotificationOperations = NotificationStore & UsageStore;

/**
 * What the sends of one group commit share: each would otherwise read the recipient's browsers,
 * step each browser's sequence and count usage with statements of its own.
 */
export interface SendGroup {
  /**
   * Connected browsers by project and recipient, with the last sequence number each had when
   * read: read once a group, in one query, since sends do not change them (the group's own steps
   * are in `lastSeq`).
   */
  browsers: Map<string, ConnectedBrowsers>;
  /** The last sequence number of each browser the group sent to, written at the end of the group. */
  lastSeq: Map<string, number>;
  /** Live usage of the group by project and UTC day, added at the end of the group. */
  usage: Map<string, { projectId: string; day: string; notifications: number; attempts: number }>;
}

/** The group commit of sends: its state, and what it writes at the end of each group. */
export function createSendGroupCommit(
  db: Database.Database,
  statements: SendStatements,
  afterCommit?: () => Promise<void>,
): GroupCommit<SendGroup> {
  return createGroupCommit<SendGroup>(db, {
    afterCommit,
    begin: () => ({ browsers: new Map(), lastSeq: new Map(), usage: new Map() }),
    end(group) {
      for (const [browserId, seq] of group.lastSeq) statements.lastSeq.run(seq, browserId);
      for (const day of group.usage.values()) {
        statements.usage.run(day.projectId, day.day, day.notifications, day.attempts);
      }
    },
  });
}

/**
 * The ledger of a send in a group commit: a recipient's browsers read once a group (sends do
 * not change them; the group's own steps are in `lastSeq`), the sequences and usage counted in
 * the group's state and written at its end.
 */
function groupLedger(statements: SendStatements, group: SendGroup): SendLedger {
  return {
    connected(projectId, recipient) {
      const recipientKey = `${projectId}\n${recipient}`;
      let connected = group.browsers.get(recipientKey);
      if (connected === undefined) {
        const rows = statements.connected.all(projectId, recipient);
        connected = { ids: rows.map((row) => row[0]), lastSeqs: rows.map((row) => row[1]) };
        group.browsers.set(recipientKey, connected);
      }
      const { ids, lastSeqs } = connected;
      return { ids, lastSeqs: ids.map((id, i) => group.lastSeq.get(id) ?? lastSeqs[i]!) };
    },
    count({ notification, attempts }) {
      for (const attempt of attempts) group.lastSeq.set(attempt.browserId, attempt.seq);
      if (notification.mode !== 'live') return;
      const day = utcDay(notification.createdAt);
      const usageKey = `${notification.projectId}\n${day}`;
      const counted = group.usage.get(usageKey);
      if (counted) {
        counted.notifications += 1;
        counted.attempts += attempts.length;
      } else {
        group.usage.set(usageKey, {
          projectId: notification.projectId,
          day,
          notifications: 1,
          attempts: attempts.length,
        });
      }
    },
  };
}

/** Notifications, their attempts, and the usage they count. */
export function notificationOperations(
  db: Database.Database,
  statements: SendStatements,
  groupCommit: GroupCommit<SendGroup>,
  groupRead: GroupRead,
  cache: NotificationCache,
): NotificationOperations {
  // One statement, so the notification and its attempts come from one snapshot without a
  // transaction around two. rowid is insertion order: attempts read back in the order
  // createNotification returned them.
  const selectNotification = db
    .prepare<[string, string], RawNotificationRow>(
      `SELECT ${NOTIFICATION_WITH_ATTEMPTS_COLUMNS}
         FROM notifications AS n LEFT JOIN attempts AS a ON a.notification_id = n.id
        WHERE n.id = ? AND n.project_id = ?
        ORDER BY a.rowid`,
    )
    .raw();
  const selectUsage = db.prepare<[string, string, string], UsageDay>(
    `SELECT day, notifications, attempts FROM usage_days
      WHERE project_id = ? AND day BETWEEN ? AND ? ORDER BY day`,
  );
  // The ids' range (ids sort by creation time) lets the index on (project_id, id) serve the read.
  const selectUsageBreakdown = db.prepare<[string, string, string, number, number], UsageBreakdownDay>(
    `SELECT strftime('%Y-%m-%d', n.created_at / 1000, 'unixepoch') AS day, n.mode AS mode,
            count(DISTINCT n.id) AS notifications, count(a.id) AS attempts,
            count(a.sent_at) AS sent, count(a.delivered_at) AS delivered
       FROM notifications AS n LEFT JOIN attempts AS a ON a.notification_id = n.id
      WHERE n.project_id = ? AND n.id >= ? AND n.id < ? AND n.created_at >= ? AND n.created_at < ?
      GROUP BY day, n.mode ORDER BY day, n.mode`,
  );

  return {
    // What a send created is not kept: the record of its sending usually changes it within
    // milliseconds, and thousands of fresh records kept alive would only give the collector more
    // to copy. A read keeps what it reads.
    async createNotification(input) {
      // Runs inside a group commit, possibly twice (see GroupCommit): the group's state changes
      // only after the send's last statement (see writeSend).
      return groupCommit.run((group) => writeSend(statements, input, groupLedger(statements, group)));
    },
    getNotification({ projectId, id }) {
      return groupRead.run(() => {
        const kept = cache.get(id);
        if (kept) return kept.notification.projectId === projectId ? kept : null;
        const found = notificationFromRawRows(selectNotification.all(id, projectId));
        if (found) cache.keep(found);
        return found;
      });
    },
    async getUsage({ projectId, fromDay, toDay }) {
      return selectUsage.all(projectId, fromDay, toDay);
    },
    async getUsageBreakdown({ projectId, from, to }) {
      return selectUsageBreakdown.all(projectId, idTimeFloor('ntf', from), idTimeFloor('ntf', to), from, to);
    },
  };
}
