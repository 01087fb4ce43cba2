import type { AttemptRecord, NotificationRecord, NotificationWithAttempts, ProjectRecord, Store } from '@tidings/core';
import type { Pool } from 'pg';
import { ATTEMPTS_JSON, NOTIFICATION, PROJECT } from './columns.js';
import { run, type Sql } from './db.js';

/** The operators' and owners' reads and the rename behind `tidings.admin`: every project, a page of the log of sends. */
export function projectAdminOperations(
  pool: Pool,
  sql: Sql,
): Pick<Store, 'renameProject' | 'listAllProjects' | 'listNotifications'> {
  const { t, statement } = sql;
  const renameProject = statement(
    'rename_project',
    `UPDATE ${t('projects')} SET name = $2 WHERE id = $1 RETURNING ${PROJECT}`,
  );
  const selectAllProjects = statement(
    'select_all_projects',
    `SELECT ${PROJECT} FROM ${t('projects')} ORDER BY created_at, id`,
  );
  // Walks the primary key backwards from the cursor: ids sort by creation time.
  const selectNotifications = statement(
    'select_notification_page',
    `SELECT ${NOTIFICATION}, ${ATTEMPTS_JSON.replace('{attempts}', t('attempts'))} AS attempts
       FROM ${t('notifications')} AS n
      WHERE n.project_id = $1
        AND ($2::text IS NULL OR n.id < $2::text)
        AND ($3::text IS NULL OR n.recipient = $3::text)
        AND ($4::text IS NULL OR n.mode = $4::text)
      ORDER BY n.id DESC LIMIT $5`,
  );

  return {
    async renameProject({ id, name }) {
      const [row] = await run<ProjectRecord>(pool, renameProject, [id, name]);
      return row ?? null;
    },
    async listAllProjects() {
      return run<ProjectRecord>(pool, selectAllProjects);
    },
    async listNotifications({ projectId, beforeId, recipient, mode, limit }) {
      const rows = await run<NotificationRecord & { attempts: AttemptRecord[] }>(pool, selectNotifications, [
        projectId,
        beforeId,
        recipient,
        mode,
        limit,
      ]);
      return rows.map(({ attempts, ...notification }): NotificationWithAttempts => ({ notification, attempts }));
    },
  };
}
