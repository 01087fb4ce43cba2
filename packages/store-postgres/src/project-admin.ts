import type { AttemptRecord, NotificationRecord, NotificationWithAttempts, ProjectRecord } from '@tidings/core';
import type { ProjectAdminStore, RecipientSummary } from '@tidings/core/store';
import type { Pool } from 'pg';
import { ATTEMPTS_JSON, NOTIFICATION, PROJECT } from './columns.js';
import { run, type Sql, transaction } from './db.js';
import { containsPattern } from './like.js';

/** The operators' and owners' reads and the rename behind `tidings.admin`: every project, a page of the log of sends. */
export function projectAdminOperations(pool: Pool, sql: Sql): ProjectAdminStore {
  const { t, statement } = sql;
  const renameProject = statement(
    'rename_project',
    `UPDATE ${t('projects')} SET name = $2 WHERE id = $1 RETURNING ${PROJECT}`,
  );
  const selectAllProjects = statement(
    'select_all_projects',
    `SELECT ${PROJECT} FROM ${t('projects')} ORDER BY created_at, id`,
  );
  // One statement: the count and the page read the same snapshot; the count's row comes back
  // even when the page is empty. The operators' page only: no index.
  const MATCHES = `($1::text IS NULL OR p.name ILIKE $1::text ESCAPE '\\' OR p.id ILIKE $1::text ESCAPE '\\'
                    OR a.email ILIKE $1::text ESCAPE '\\')`;
  const FROM = `${t('projects')} AS p JOIN ${t('accounts')} AS a ON a.id = p.account_id`;
  const searchProjects = statement(
    'search_projects',
    `SELECT c.total, m.* FROM (SELECT count(*) AS total FROM ${FROM} WHERE ${MATCHES}) AS c
       LEFT JOIN LATERAL (
         SELECT p.id, p.account_id AS "accountId", p.name, p.suspended, p.created_at AS "createdAt",
                p.suspended_at AS "suspendedAt", p.suspended_reason AS "suspendedReason",
                p.suspended_by AS "suspendedBy", a.email AS "accountEmail"
           FROM ${FROM} WHERE ${MATCHES}
          ORDER BY p.created_at, p.id LIMIT $2 OFFSET $3
       ) AS m ON true`,
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

  // Walks the recipients' primary key (project, recipient; bytewise, COLLATE "C") from the
  // cursor (no cursor is '', before every id, so that one plan serves both); each count reads the
  // index of connected browsers by recipient.
  const selectRecipients = statement(
    'select_recipient_page',
    `SELECT r.recipient, r.created_at AS "createdAt",
            (SELECT count(*) FROM ${t('browsers')} AS b
              WHERE b.project_id = r.project_id AND b.recipient = r.recipient AND b.connected) AS "connectedBrowsers"
       FROM ${t('recipients')} AS r
      WHERE r.project_id = $1 AND r.recipient > $2::text
      ORDER BY r.recipient LIMIT $3`,
  );

  // The project's row is locked first, so that two deletions (or a deletion and a rename) queue;
  // then children first: notifications, attempts and usage carry no foreign keys, the rest do.
  const lockProject = statement('lock_project_for_delete', `SELECT id FROM ${t('projects')} WHERE id = $1 FOR UPDATE`);
  const deleteProjectRows = [
    `DELETE FROM ${t('attempts')} WHERE notification_id IN (SELECT id FROM ${t('notifications')} WHERE project_id = $1)`,
    `DELETE FROM ${t('inbox_items')} WHERE project_id = $1`,
    `DELETE FROM ${t('inbox_counts')} WHERE project_id = $1`,
    `DELETE FROM ${t('inbox_retention')} WHERE project_id = $1`,
    `DELETE FROM ${t('notifications')} WHERE project_id = $1`,
    `DELETE FROM ${t('connect_tokens')} WHERE project_id = $1`,
    `DELETE FROM ${t('browsers')} WHERE project_id = $1`,
    `DELETE FROM ${t('recipients')} WHERE project_id = $1`,
    `DELETE FROM ${t('idempotency_keys')} WHERE project_id = $1`,
    `DELETE FROM ${t('usage_days')} WHERE project_id = $1`,
    `DELETE FROM ${t('api_keys')} WHERE project_id = $1`,
    `DELETE FROM ${t('request_log_notifications')} WHERE project_id = $1`,
    `DELETE FROM ${t('request_log')} WHERE project_id = $1`,
    `DELETE FROM ${t('projects')} WHERE id = $1`,
  ].map((text, index) => statement(`delete_project_${index}`, text));
  const lockAccount = statement('lock_account_for_delete', `SELECT id FROM ${t('accounts')} WHERE id = $1 FOR UPDATE`);
  const selectProjectIds = statement(
    'select_account_project_ids',
    `SELECT id FROM ${t('projects')} WHERE account_id = $1 ORDER BY id FOR UPDATE`,
  );
  const deleteAccountRow = statement('delete_account_row', `DELETE FROM ${t('accounts')} WHERE id = $1`);

  async function deleteProjectRowsOf(client: Parameters<typeof run>[0], id: string): Promise<void> {
    for (const step of deleteProjectRows) await run(client, step, [id]);
  }

  return {
    async deleteProject({ id }) {
      return transaction(pool, async (client) => {
        if ((await run(client, lockProject, [id])).length === 0) return false;
        await deleteProjectRowsOf(client, id);
        return true;
      });
    },
    async deleteAccount({ id }) {
      return transaction(pool, async (client) => {
        if ((await run(client, lockAccount, [id])).length === 0) return null;
        const projectIds = (await run<{ id: string }>(client, selectProjectIds, [id])).map((row) => row.id);
        for (const projectId of projectIds) await deleteProjectRowsOf(client, projectId);
        await run(client, deleteAccountRow, [id]);
        return { projectIds };
      });
    },
    async renameProject({ id, name }) {
      const [row] = await run<ProjectRecord>(pool, renameProject, [id, name]);
      return row ?? null;
    },
    async listAllProjects() {
      return run<ProjectRecord>(pool, selectAllProjects);
    },
    async searchProjects({ query, offset, limit }) {
      const rows = await run<ProjectRecord & { total: number; accountEmail: string }>(pool, searchProjects, [
        containsPattern(query),
        limit,
        offset,
      ]);
      return {
        projects: rows
          .filter((row) => row.id !== null)
          .map(({ total: _total, accountEmail, ...project }) => ({ project, accountEmail })),
        total: rows[0]?.total ?? 0,
      };
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
    async listRecipients({ projectId, afterRecipient, limit }) {
      return run<RecipientSummary>(pool, selectRecipients, [projectId, afterRecipient ?? '', limit]);
    },
  };
}
