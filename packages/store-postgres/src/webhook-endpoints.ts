import type { CreateWebhookEndpointResult, WebhookEndpointRecord, WebhookEndpointStore } from '@tidings/core/store';
import type { Pool } from 'pg';
import { run, type Sql, transaction } from './db.js';

/** A webhook endpoint's columns as its record. */
export const ENDPOINT =
  'id, project_id AS "projectId", url, description, events, status, disabled_reason AS "disabledReason", ' +
  'secret, previous_secret AS "previousSecret", previous_secret_expires_at AS "previousSecretExpiresAt", ' +
  'created_at AS "createdAt", updated_at AS "updatedAt", failing_since AS "failingSince"';

/** Webhook endpoints; the project's row lock serializes the creations of one project. */
export function webhookEndpointOperations(pool: Pool, sql: Sql): WebhookEndpointStore {
  const { t, statement } = sql;
  const lockProject = statement(
    'lock_project_for_webhook',
    `SELECT 1 FROM ${t('projects')} WHERE id = $1 FOR NO KEY UPDATE`,
  );
  const insertUnderLimit = statement(
    'insert_webhook_endpoint',
    `INSERT INTO ${t('webhook_endpoints')} (id, project_id, url, description, events, status, secret, created_at, updated_at)
     SELECT $1, $2, $3, $4, $5::text[], 'enabled', $6, $7, $7
      WHERE (SELECT count(*) FROM ${t('webhook_endpoints')} WHERE project_id = $2) < $8
     RETURNING ${ENDPOINT}`,
  );
  const select = statement(
    'select_webhook_endpoint',
    `SELECT ${ENDPOINT} FROM ${t('webhook_endpoints')} WHERE id = $1`,
  );
  const selectByProject = statement(
    'select_webhook_endpoints',
    `SELECT ${ENDPOINT} FROM ${t('webhook_endpoints')} WHERE project_id = $1 ORDER BY created_at, id`,
  );
  const update = statement(
    'update_webhook_endpoint',
    `UPDATE ${t('webhook_endpoints')}
        SET url = coalesce($2, url),
            description = CASE WHEN $3::boolean THEN $4 ELSE description END,
            events = coalesce($5::text[], events),
            updated_at = $6
      WHERE id = $1 RETURNING ${ENDPOINT}`,
  );
  const setStatus = statement(
    'set_webhook_endpoint_status',
    `UPDATE ${t('webhook_endpoints')} SET status = $2, disabled_reason = $3, updated_at = $4,
            failing_since = CASE WHEN $2 = 'enabled' THEN NULL ELSE failing_since END
      WHERE id = $1 RETURNING ${ENDPOINT}`,
  );
  const remove = statement(
    'delete_webhook_endpoint',
    `DELETE FROM ${t('webhook_endpoints')} WHERE id = $1 RETURNING id`,
  );
  const roll = statement(
    'roll_webhook_secret',
    `UPDATE ${t('webhook_endpoints')}
        SET previous_secret = secret, previous_secret_expires_at = $3, secret = $2, updated_at = $4
      WHERE id = $1 RETURNING ${ENDPOINT}`,
  );

  return {
    async createWebhookEndpoint(input) {
      return transaction(pool, async (client): Promise<CreateWebhookEndpointResult> => {
        const [project] = await run(client, lockProject, [input.projectId]);
        if (!project) return { kind: 'project-not-found' };
        const [endpoint] = await run<WebhookEndpointRecord>(client, insertUnderLimit, [
          input.id,
          input.projectId,
          input.url,
          input.description,
          input.events,
          input.secret,
          input.now,
          input.maxEndpoints,
        ]);
        return endpoint ? { kind: 'created', endpoint } : { kind: 'limit-reached' };
      });
    },
    async getWebhookEndpoint(id) {
      const [row] = await run<WebhookEndpointRecord>(pool, select, [id]);
      return row ?? null;
    },
    async listWebhookEndpoints(projectId) {
      return run<WebhookEndpointRecord>(pool, selectByProject, [projectId]);
    },
    async updateWebhookEndpoint(input) {
      const [row] = await run<WebhookEndpointRecord>(pool, update, [
        input.id,
        input.url ?? null,
        input.description !== undefined,
        input.description ?? null,
        input.events ?? null,
        input.now,
      ]);
      return row ?? null;
    },
    async setWebhookEndpointStatus({ id, status, reason, now }) {
      const [row] = await run<WebhookEndpointRecord>(pool, setStatus, [
        id,
        status,
        status === 'disabled' ? reason : null,
        now,
      ]);
      return row ?? null;
    },
    async deleteWebhookEndpoint({ id }) {
      const rows = await run(pool, remove, [id]);
      return rows.length > 0;
    },
    async rollWebhookSecret({ id, secret, previousExpiresAt, now }) {
      const [row] = await run<WebhookEndpointRecord>(pool, roll, [id, secret, previousExpiresAt, now]);
      return row ?? null;
    },
  };
}
