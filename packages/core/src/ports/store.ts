import type { InboxStore } from '../inbox/store.js';
import type { PushStore } from '../push/store.js';
import type { RequestLogStore } from '../request-log/store.js';
import type { TransactionalSends } from '../transactions/transaction.js';
import type { WebhookEndpointStore } from '../webhooks/endpoint-store.js';
import type { WebhookMessageStore } from '../webhooks/message-store.js';
import type { AccountStore } from './store/accounts.js';
import type { ApiKeyStore } from './store/api-keys.js';
import type { BrowserStore } from './store/browsers.js';
import type { DeliveryStore } from './store/deliveries.js';
import type { IdempotencyStore } from './store/idempotency.js';
import type { JobStore } from './store/jobs.js';
import type { MaintenanceStore } from './store/maintenance.js';
import type { NotificationStore } from './store/notifications.js';
import type { ProjectAdminStore } from './store/project-admin.js';
import type { StoredSecretStore } from './store/stored-secrets.js';
import type { UsageStore } from './store/usage.js';

export type * from '../inbox/store.js';
export type * from '../push/store.js';
export type * from '../request-log/store.js';
export type * from '../webhooks/endpoint-store.js';
export type * from '../webhooks/message-store.js';
export type * from './jobs.js';
export type * from './store/accounts.js';
export type * from './store/api-keys.js';
export type * from './store/browsers.js';
export type * from './store/deliveries.js';
export type * from './store/duties.js';
export type * from './store/idempotency.js';
export type * from './store/jobs.js';
export type * from './store/maintenance.js';
export type * from './store/notifications.js';
export type * from './store/project-admin.js';
export type * from './store/stored-secrets.js';
export type * from './store/usage.js';

/**
 * Where Tidings keeps its state. Every method is one atomic, domain-shaped operation (never
 * get-then-set across calls), so that a network store can implement the same port. Times are
 * epoch milliseconds passed in by the caller: the store never reads a clock of its own.
 *
 * Records are values: neither the store nor its caller changes a record once it is handed over
 * or returned. A store may return the very same notification object again while that
 * notification has not changed (the core renders such a record once), and must return another
 * object once it has.
 *
 * The port is the sum of its roles (ports/store/): a part of the core that needs only some of
 * them takes only those, and can be given something that implements just them.
 *
 * What only the web dashboard keeps (passwords, sessions, one-time codes, the audit log) is not
 * here: it is the dashboard's own port, `DashboardStore` in `@tidings/dashboard`, which keeps its
 * tables on a store's database through the store's `capabilities`.
 */
export interface Store
  extends AccountStore,
    ProjectAdminStore,
    ApiKeyStore,
    WebhookEndpointStore,
    WebhookMessageStore,
    UsageStore,
    IdempotencyStore,
    NotificationStore,
    BrowserStore,
    DeliveryStore,
    InboxStore,
    PushStore,
    StoredSecretStore,
    RequestLogStore,
    JobStore,
    MaintenanceStore {
  /**
   * What the store offers beyond the port, as typed values: the core uses what it finds here
   * (sends through an application's transaction), and a store's own type names the rest (its
   * database, for a package that keeps tables of its own on it). A wrapper of the store (the
   * metrics') carries it as it is.
   */
  readonly capabilities: StoreCapabilities;
}

/** What a store may offer beyond the port; a store's own type narrows it to what it offers. */
export interface StoreCapabilities {
  /** Sends through an application's own transaction (docs/transactions.md); absent where the store offers none. */
  readonly transactions?: TransactionalSends;
}

/** The names of the port's methods: every member of {@link Store} but its capabilities. */
export type StoreMethod = Exclude<keyof Store, 'capabilities'>;
