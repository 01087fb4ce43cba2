import { TidingsError } from '../pipeline/errors.js';
import type { Clock } from '../ports/clock.js';
import type { AccountStore, WebhookEndpointRecord, WebhookEndpointStore } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { type SecretPlace, type SecretSealer, unsealedSecrets } from '../shared/sealing/sealer.js';
import { generateWebhookSecret } from './signature.js';

/** Webhook endpoints per project. */
export const MAX_WEBHOOK_ENDPOINTS_PER_PROJECT = 10;
/** The event types an endpoint may ask for (or `*` for all). */
export const WEBHOOK_EVENT_TYPES = [
  'notification.attempt.updated',
  'notification.completed',
  'browser.connected',
  'browser.disconnected',
  'notification.read',
  'notification.unread',
] as const;
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 200;
const DEFAULT_GRACE_SECONDS = 86_400;
const MAX_GRACE_SECONDS = 7 * 86_400;

/** A webhook endpoint as the admin API answers it; `secret` only at creation and roll. */
export interface WebhookEndpointObject {
  object: 'webhook_endpoint';
  id: string;
  project_id: string;
  url: string;
  description: string | null;
  events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
  secret?: string;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The endpoint's object, with `secret` only when given (creation and roll: the secret just made,
 * never what the store holds, which may be sealed).
 */
export function webhookEndpointObject(record: WebhookEndpointRecord, secret?: string): WebhookEndpointObject {
  return {
    object: 'webhook_endpoint',
    id: record.id,
    project_id: record.projectId,
    url: record.url,
    description: record.description,
    events: record.events,
    status: record.status,
    disabled_reason: record.disabledReason,
    previous_secret_expires_at: record.previousSecretExpiresAt === null ? null : iso(record.previousSecretExpiresAt),
    created_at: iso(record.createdAt),
    updated_at: iso(record.updatedAt),
    ...(secret === undefined ? {} : { secret }),
  };
}

export interface WebhookAdminApi {
  /** Creates an endpoint; the answer is the only place its secret appears. */
  createWebhookEndpoint(input: {
    projectId: string;
    url: string;
    events: string[];
    description?: string | null;
  }): Promise<WebhookEndpointObject>;
  listWebhookEndpoints(projectId: string): Promise<WebhookEndpointObject[]>;
  getWebhookEndpoint(id: string): Promise<WebhookEndpointObject>;
  updateWebhookEndpoint(
    id: string,
    change: { url?: string; events?: string[]; description?: string | null },
  ): Promise<WebhookEndpointObject>;
  disableWebhookEndpoint(id: string, reason?: string | null): Promise<WebhookEndpointObject>;
  enableWebhookEndpoint(id: string): Promise<WebhookEndpointObject>;
  /** Deletes an endpoint; answers it as it was. */
  deleteWebhookEndpoint(id: string): Promise<WebhookEndpointObject>;
  /**
   * Gives the endpoint a new secret, answered once; the old one still signs for `graceSeconds`
   * (default 24 hours, at most 7 days, 0 to drop it at once).
   */
  rollWebhookSecret(id: string, options?: { graceSeconds?: number }): Promise<WebhookEndpointObject>;
}

function invalid(path: string, message: string): TidingsError {
  return new TidingsError('VALIDATION_FAILED', message, { errors: [{ path, message }] });
}

function notFound(id: string): TidingsError {
  return new TidingsError('NOT_FOUND', `No webhook endpoint with id ${id}`);
}

function checkUrl(url: unknown, allowHttp: boolean): string {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH) {
    throw invalid('url', `must be an absolute URL of at most ${MAX_URL_LENGTH} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('url', 'must be an absolute URL');
  }
  if (parsed.protocol !== 'https:' && !(allowHttp && parsed.protocol === 'http:')) {
    throw invalid('url', allowHttp ? 'must be an https: or http: URL' : 'must be an https: URL');
  }
  if (parsed.username !== '' || parsed.password !== '') throw invalid('url', 'must not hold credentials');
  return url;
}

function checkEvents(events: unknown): string[] {
  const known: readonly string[] = WEBHOOK_EVENT_TYPES;
  if (
    !Array.isArray(events) ||
    events.length === 0 ||
    !events.every((event) => typeof event === 'string' && (event === '*' || known.includes(event)))
  ) {
    throw invalid('events', `must be one or more of ${[...WEBHOOK_EVENT_TYPES, '*'].join(', ')}`);
  }
  return [...new Set(events as string[])];
}

function checkDescription(description: unknown): string | null {
  if (description === null || description === undefined) return null;
  if (typeof description !== 'string' || description.length > MAX_DESCRIPTION_LENGTH) {
    throw invalid('description', `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  return description;
}

/** The row an endpoint's secrets are sealed for. */
export function webhookSecretPlace(endpoint: { id: string; projectId: string }): SecretPlace {
  return { table: 'webhook_endpoints', id: endpoint.id, projectId: endpoint.projectId };
}

/** The admin API's webhook endpoint operations over a store. */
export function createWebhookAdmin(
  store: AccountStore & WebhookEndpointStore,
  clock: Clock,
  settings: { allowHttp: boolean; sealer?: SecretSealer },
): WebhookAdminApi {
  const sealer = settings.sealer ?? unsealedSecrets;
  async function found(id: string, record: Promise<WebhookEndpointRecord | null>): Promise<WebhookEndpointObject> {
    const endpoint = await record;
    if (!endpoint) throw notFound(id);
    return webhookEndpointObject(endpoint);
  }
  return {
    async createWebhookEndpoint({ projectId, url, events, description }) {
      const now = clock.now();
      const id = newId('whe', now);
      const secret = generateWebhookSecret();
      const result = await store.createWebhookEndpoint({
        id,
        projectId,
        url: checkUrl(url, settings.allowHttp),
        events: checkEvents(events),
        description: checkDescription(description),
        secret: sealer.seal(secret, webhookSecretPlace({ id, projectId })),
        now,
        maxEndpoints: MAX_WEBHOOK_ENDPOINTS_PER_PROJECT,
      });
      switch (result.kind) {
        case 'created':
          return webhookEndpointObject(result.endpoint, secret);
        case 'project-not-found':
          throw new TidingsError('NOT_FOUND', `No project with id ${projectId}`);
        case 'limit-reached':
          throw new TidingsError(
            'WEBHOOK_ENDPOINT_LIMIT_REACHED',
            `A project holds at most ${MAX_WEBHOOK_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one first`,
          );
      }
    },
    async listWebhookEndpoints(projectId) {
      if (!(await store.getProject(projectId))) throw new TidingsError('NOT_FOUND', `No project with id ${projectId}`);
      return (await store.listWebhookEndpoints(projectId)).map((endpoint) => webhookEndpointObject(endpoint));
    },
    async getWebhookEndpoint(id) {
      return found(id, store.getWebhookEndpoint(id));
    },
    async updateWebhookEndpoint(id, change) {
      return found(
        id,
        store.updateWebhookEndpoint({
          id,
          ...(change.url === undefined ? {} : { url: checkUrl(change.url, settings.allowHttp) }),
          ...(change.events === undefined ? {} : { events: checkEvents(change.events) }),
          ...(change.description === undefined ? {} : { description: checkDescription(change.description) }),
          now: clock.now(),
        }),
      );
    },
    async disableWebhookEndpoint(id, reason = null) {
      if (reason !== null && (typeof reason !== 'string' || reason.length > MAX_DESCRIPTION_LENGTH)) {
        throw invalid('reason', `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
      }
      return found(id, store.setWebhookEndpointStatus({ id, status: 'disabled', reason, now: clock.now() }));
    },
    async enableWebhookEndpoint(id) {
      return found(id, store.setWebhookEndpointStatus({ id, status: 'enabled', reason: null, now: clock.now() }));
    },
    async deleteWebhookEndpoint(id) {
      const endpoint = await store.getWebhookEndpoint(id);
      if (!endpoint || !(await store.deleteWebhookEndpoint({ id }))) throw notFound(id);
      return webhookEndpointObject(endpoint);
    },
    async rollWebhookSecret(id, { graceSeconds = DEFAULT_GRACE_SECONDS } = {}) {
      if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_GRACE_SECONDS) {
        throw invalid('graceSeconds', `must be 0 to ${MAX_GRACE_SECONDS}`);
      }
      // The new secret is sealed for the endpoint's row, which names its project.
      const current = await store.getWebhookEndpoint(id);
      if (!current) throw notFound(id);
      const secret = generateWebhookSecret();
      const now = clock.now();
      const endpoint = await store.rollWebhookSecret({
        id,
        secret: sealer.seal(secret, webhookSecretPlace(current)),
        previousExpiresAt: now + graceSeconds * 1000,
        now,
      });
      if (!endpoint) throw notFound(id);
      return webhookEndpointObject(endpoint, secret);
    },
  };
}
