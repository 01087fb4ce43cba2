import type { ListNotificationsInput, NotificationWithAttempts, Store } from '@tidings/core';
import type Database from 'better-sqlite3';
import {
  NOTIFICATION_WITH_ATTEMPTS_COLUMNS,
  notificationFromRawRows,
  type ProjectRow,
  projectFromRow,
  type RawNotificationRow,
} from './rows.js';

/** The operators' and owners' reads and the rename behind `tidings.admin`: every project, a page of the log of sends. */
export function projectAdminOperations(
  db: Database.Database,
): Pick<Store, 'renameProject' | 'listAllProjects' | 'listNotifications'> {
  const renameProject = db.prepare<[string, string], ProjectRow>(
    'UPDATE projects SET name = ? WHERE id = ? RETURNING *',
  );
  const selectAllProjects = db.prepare<[], ProjectRow>('SELECT * FROM projects ORDER BY created_at, id');
  // Walks the primary key backwards from the cursor: ids sort by creation time.
  const selectNotificationIds = db
    .prepare<
      { project: string; before: string | null; recipient: string | null; mode: string | null; limit: number },
      string
    >(
      `SELECT id FROM notifications
        WHERE project_id = @project
          AND (@before IS NULL OR id < @before)
          AND (@recipient IS NULL OR recipient = @recipient)
          AND (@mode IS NULL OR mode = @mode)
        ORDER BY id DESC LIMIT @limit`,
    )
    .pluck();
  const selectNotification = db
    .prepare<[string], RawNotificationRow>(
      `SELECT ${NOTIFICATION_WITH_ATTEMPTS_COLUMNS}
         FROM notifications AS n LEFT JOIN attempts AS a ON a.notification_id = n.id
        WHERE n.id = ? ORDER BY a.rowid`,
    )
    .raw();

  const listNotifications = db.transaction((input: ListNotificationsInput) =>
    selectNotificationIds
      .all({
        project: input.projectId,
        before: input.beforeId,
        recipient: input.recipient,
        mode: input.mode,
        limit: input.limit,
      })
      .map((id) => notificationFromRawRows(selectNotification.all(id)) as NotificationWithAttempts),
  );

  return {
    async renameProject({ id, name }) {
      const row = renameProject.get(name, id);
      return row ? projectFromRow(row) : null;
    },
    async listAllProjects() {
      return selectAllProjects.all().map(projectFromRow);
    },
    async listNotifications(input) {
      return listNotifications(input);
    },
  };
}
