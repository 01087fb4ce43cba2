import type { CreateWebhookEndpointResult, WebhookEndpointRecord, WebhookEndpointStore } from '@tidings/core/store';
import type Database from 'better-sqlite3';

/** A row of `webhook_endpoints`. */
export interface WebhookEndpointRow {
  id: string;
  project_id: string;
  url: string;
  description: string | null;
  events: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
  failing_since: number | null;
}

/** The record of a row of `webhook_endpoints`. */
export function endpointFromRow(row: WebhookEndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    status: row.status,
    disabledReason: row.disabled_reason,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    failingSince: row.failing_since,
  };
}

/** What `createWebhookEndpoint` takes, as the port declares it. */
type CreateInput = Parameters<WebhookEndpointStore['createWebhookEndpoint']>[0];

/** Webhook endpoints: the event types are kept as a JSON array. */
export function webhookEndpointOperations(db: Database.Database): WebhookEndpointStore {
  const projectExists = db.prepare<[string], number>('SELECT 1 FROM projects WHERE id = ?').pluck();
  const countEndpoints = db
    .prepare<[string], number>('SELECT count(*) FROM webhook_endpoints WHERE project_id = ?')
    .pluck();
  const insert = db.prepare<Record<string, unknown>, WebhookEndpointRow>(
    `INSERT INTO webhook_endpoints (id, project_id, url, description, events, status, secret, created_at, updated_at)
     VALUES (@id, @projectId, @url, @description, @events, 'enabled', @secret, @now, @now)
     RETURNING *`,
  );
  const select = db.prepare<[string], WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?');
  const selectByProject = db.prepare<[string], WebhookEndpointRow>(
    'SELECT * FROM webhook_endpoints WHERE project_id = ? ORDER BY created_at, id',
  );
  const update = db.prepare<Record<string, unknown>, WebhookEndpointRow>(
    `UPDATE webhook_endpoints
        SET url = coalesce(@url, url),
            description = CASE WHEN @setDescription THEN @description ELSE description END,
            events = coalesce(@events, events),
            updated_at = @now
      WHERE id = @id RETURNING *`,
  );
  const setStatus = db.prepare<Record<string, unknown>, WebhookEndpointRow>(
    `UPDATE webhook_endpoints SET status = @status, disabled_reason = @reason, updated_at = @now,
            failing_since = CASE WHEN @status = 'enabled' THEN NULL ELSE failing_since END
      WHERE id = @id RETURNING *`,
  );
  const remove = db.prepare<[string]>('DELETE FROM webhook_endpoints WHERE id = ?');
  const roll = db.prepare<Record<string, unknown>, WebhookEndpointRow>(
    `UPDATE webhook_endpoints
        SET previous_secret = secret, previous_secret_expires_at = @previousExpiresAt,
            secret = @secret, updated_at = @now
      WHERE id = @id RETURNING *`,
  );

  const create = db.transaction((input: CreateInput): CreateWebhookEndpointResult => {
    if (!projectExists.get(input.projectId)) return { kind: 'project-not-found' };
    if (countEndpoints.get(input.projectId)! >= input.maxEndpoints) return { kind: 'limit-reached' };
    const row = insert.get({
      id: input.id,
      projectId: input.projectId,
      url: input.url,
      description: input.description,
      events: JSON.stringify(input.events),
      secret: input.secret,
      now: input.now,
    })!;
    return { kind: 'created', endpoint: endpointFromRow(row) };
  });

  return {
    async createWebhookEndpoint(input) {
      return create.immediate(input);
    },
    async getWebhookEndpoint(id) {
      const row = select.get(id);
      return row ? endpointFromRow(row) : null;
    },
    async listWebhookEndpoints(projectId) {
      return selectByProject.all(projectId).map(endpointFromRow);
    },
    async updateWebhookEndpoint(input) {
      const row = update.get({
        id: input.id,
        url: input.url ?? null,
        setDescription: input.description === undefined ? 0 : 1,
        description: input.description ?? null,
        events: input.events === undefined ? null : JSON.stringify(input.events),
        now: input.now,
      });
      return row ? endpointFromRow(row) : null;
    },
    async setWebhookEndpointStatus({ id, status, reason, now }) {
      const row = setStatus.get({ id, status, reason: status === 'disabled' ? reason : null, now });
      return row ? endpointFromRow(row) : null;
    },
    async deleteWebhookEndpoint({ id }) {
      return remove.run(id).changes > 0;
    },
    async rollWebhookSecret({ id, secret, previousExpiresAt, now }) {
      const row = roll.get({ id, secret, previousExpiresAt, now });
      return row ? endpointFromRow(row) : null;
    },
  };
}
