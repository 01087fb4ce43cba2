/** Whether a webhook endpoint is sent events. */
export type WebhookEndpointStatus = 'enabled' | 'disabled';

/**
 * A project's webhook endpoint. `secret` signs what is sent to it (not hashed, since signing needs
 * it: the store keeps the text the core gives it, sealed under the secrets key when one is set);
 * after a roll `previousSecret` still signs until `previousSecretExpiresAt`.
 */
export interface WebhookEndpointRecord {
  id: string;
  projectId: string;
  url: string;
  description: string | null;
  events: string[];
  status: WebhookEndpointStatus;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  /**
   * Since when every request to the endpoint has failed (the first failure after its last
   * success), or null: an endpoint failing for 3 days is disabled.
   */
  failingSince: number | null;
}

/** Outcome of {@link WebhookEndpointStore.createWebhookEndpoint}. */
export type CreateWebhookEndpointResult =
  | { kind: 'created'; endpoint: WebhookEndpointRecord }
  | { kind: 'project-not-found' }
  | { kind: 'limit-reached' };

/** A project's webhook endpoints, as the admin API manages them. */
export interface WebhookEndpointStore {
  /**
   * Creates a webhook endpoint if the project exists and has fewer than `maxEndpoints`, counted
   * in the same transaction as the insert.
   */
  createWebhookEndpoint(input: {
    id: string;
    projectId: string;
    url: string;
    description: string | null;
    events: string[];
    secret: string;
    now: number;
    maxEndpoints: number;
  }): Promise<CreateWebhookEndpointResult>;
  getWebhookEndpoint(id: string): Promise<WebhookEndpointRecord | null>;
  /** A project's endpoints, oldest first. */
  listWebhookEndpoints(projectId: string): Promise<WebhookEndpointRecord[]>;
  /** Changes the fields given (the others stay). Null when unknown. */
  updateWebhookEndpoint(input: {
    id: string;
    url?: string;
    description?: string | null;
    events?: string[];
    now: number;
  }): Promise<WebhookEndpointRecord | null>;
  /**
   * Enables or disables an endpoint; the reason is kept only while disabled, and enabling clears
   * `failingSince`. Null when unknown.
   */
  setWebhookEndpointStatus(input: {
    id: string;
    status: WebhookEndpointStatus;
    reason: string | null;
    now: number;
  }): Promise<WebhookEndpointRecord | null>;
  /** False when unknown. */
  deleteWebhookEndpoint(input: { id: string }): Promise<boolean>;
  /**
   * Replaces the secret; the one replaced stays as `previousSecret` until `previousExpiresAt`.
   * Null when unknown.
   */
  rollWebhookSecret(input: {
    id: string;
    secret: string;
    previousExpiresAt: number;
    now: number;
  }): Promise<WebhookEndpointRecord | null>;
}
