import type { ListNotificationsInput, NotificationWithAttempts, SearchProjectsInput, Store } from '@tidings/core';
import type Database from 'better-sqlite3';
import { containsPattern } from './like.js';
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
): Pick<Store, 'renameProject' | 'listAllProjects' | 'searchProjects' | 'listNotifications'> {
  const renameProject = db.prepare<[string, string], ProjectRow>(
    'UPDATE projects SET name = ? WHERE id = ? RETURNING *',
  );
  const selectAllProjects = db.prepare<[], ProjectRow>('SELECT * FROM projects ORDER BY created_at, id');
  // SQLite's LIKE ignores the case of ASCII letters. The operators' page only: no index.
  const MATCHES = `(@pattern IS NULL OR p.name LIKE @pattern ESCAPE '\\' OR p.id LIKE @pattern ESCAPE '\\'
                    OR a.email LIKE @pattern ESCAPE '\\')`;
  const selectMatchingProjects = db.prepare<
    { pattern: string | null; limit: number; offset: number },
    ProjectRow & { account_email: string }
  >(
    `SELECT p.*, a.email AS account_email FROM projects AS p JOIN accounts AS a ON a.id = p.account_id
      WHERE ${MATCHES} ORDER BY p.created_at, p.id LIMIT @limit OFFSET @offset`,
  );
  const countMatchingProjects = db
    .prepare<{ pattern: string | null }, number>(
      `SELECT count(*) FROM projects AS p JOIN accounts AS a ON a.id = p.account_id WHERE ${MATCHES}`,
    )
    .pluck();
  const searchProjects = db.transaction((input: SearchProjectsInput) => {
    const pattern = containsPattern(input.query);
    return {
      projects: selectMatchingProjects
        .all({ pattern, limit: input.limit, offset: input.offset })
        .map((row) => ({ project: projectFromRow(row), accountEmail: row.account_email })),
      total: countMatchingProjects.get({ pattern })!,
    };
  });
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
    async searchProjects(input) {
      return searchProjects(input);
    },
    async listNotifications(input) {
      return listNotifications(input);
    },
  };
}
