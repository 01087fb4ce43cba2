import type { NotificationWithAttempts } from '@tidings/core';
import type {
  ListNotificationsInput,
  ListRecipientsInput,
  ProjectAdminStore,
  SearchProjectsInput,
} from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { containsPattern } from './like.js';
import type { NotificationCache } from './notification-cache.js';
import {
  NOTIFICATION_WITH_ATTEMPTS_COLUMNS,
  notificationFromRawRows,
  type ProjectRow,
  projectFromRow,
  type RawNotificationRow,
} from './rows.js';

/** The operators' and owners' reads and the rename behind `tidings.admin`: every project, a page of the log of sends. */
export function projectAdminOperations(db: Database.Database, cache: NotificationCache): ProjectAdminStore {
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

  // Walks the recipients' primary key (project, recipient) from the cursor (no cursor is '', before
  // every id: a condition on NULL would read the project's recipients from the first); each count
  // reads the browsers' index by recipient and state, never a browser's row.
  const selectRecipients = db.prepare<
    { project: string; after: string; limit: number },
    { recipient: string; created_at: number; connected_browsers: number }
  >(
    `SELECT r.recipient, r.created_at,
            (SELECT count(*) FROM browsers AS b
              WHERE b.project_id = r.project_id AND b.recipient = r.recipient AND b.connected = 1) AS connected_browsers
       FROM recipients AS r
      WHERE r.project_id = @project AND r.recipient > @after
      ORDER BY r.recipient LIMIT @limit`,
  );

  // Children first: attempts and notifications carry no foreign keys, the rest do. Deleting the
  // keys raises the key lookup generation (migration 3), so every process drops what it kept.
  const selectNotificationIdsOfProject = db
    .prepare<[string], string>('SELECT id FROM notifications WHERE project_id = ?')
    .pluck();
  const deleteProjectRows = [
    'DELETE FROM attempts WHERE notification_id IN (SELECT id FROM notifications WHERE project_id = ?)',
    'DELETE FROM inbox_items WHERE project_id = ?',
    'DELETE FROM inbox_counts WHERE project_id = ?',
    'DELETE FROM inbox_retention WHERE project_id = ?',
    'DELETE FROM notifications WHERE project_id = ?',
    'DELETE FROM connect_tokens WHERE project_id = ?',
    'DELETE FROM browsers WHERE project_id = ?',
    'DELETE FROM recipients WHERE project_id = ?',
    'DELETE FROM idempotency_keys WHERE project_id = ?',
    'DELETE FROM usage_days WHERE project_id = ?',
    'DELETE FROM api_keys WHERE project_id = ?',
  ].map((sql) => db.prepare<[string]>(sql));
  const deleteProjectRow = db.prepare<[string]>('DELETE FROM projects WHERE id = ?');
  const selectProjectIdsOfAccount = db
    .prepare<[string], string>('SELECT id FROM projects WHERE account_id = ? ORDER BY id')
    .pluck();
  const deleteAccountRow = db.prepare<[string]>('DELETE FROM accounts WHERE id = ?');

  function deleteOneProject(id: string): boolean {
    const notificationIds = selectNotificationIdsOfProject.all(id);
    for (const statement of deleteProjectRows) statement.run(id);
    cache.forget(notificationIds);
    return deleteProjectRow.run(id).changes > 0;
  }
  const deleteProject = db.transaction(deleteOneProject);
  const deleteAccount = db.transaction((id: string) => {
    const projectIds = selectProjectIdsOfAccount.all(id);
    for (const projectId of projectIds) deleteOneProject(projectId);
    return deleteAccountRow.run(id).changes > 0 ? { projectIds } : null;
  });

  return {
    async deleteProject({ id }) {
      return deleteProject.immediate(id);
    },
    async deleteAccount({ id }) {
      return deleteAccount.immediate(id);
    },
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
    async listRecipients({ projectId, afterRecipient, limit }: ListRecipientsInput) {
      return selectRecipients.all({ project: projectId, after: afterRecipient ?? '', limit }).map((row) => ({
        recipient: row.recipient,
        createdAt: row.created_at,
        connectedBrowsers: row.connected_browsers,
      }));
    },
  };
}
