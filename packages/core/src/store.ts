/**
 * `@tidings/core/store`: what a store of Tidings implements and shares. The port's roles with
 * their inputs and results, the table of every method's write duties, and the helpers each
 * store calls in its own transactions (the accepted attempt, the job wake-ups, the webhook
 * messages of a change). An embedding never needs this entry: it passes a finished store to
 * `createTidings`.
 */
export { acceptedAttempt } from './delivery/accepted-attempt.js';
export { type NotificationColumnValues, notificationColumnValues } from './delivery/notification-columns.js';
export {
  DEFAULT_INBOX_RETENTION_DAYS,
  type InboxAction,
  type InboxCounts,
  type InboxItemRecord,
  type InboxStore,
  type InboxTarget,
  type MarkInboxResult,
} from './inbox/store.js';
export type { ClaimedJob, JobRecord, JobStatus, JobsOf, NewJob } from './ports/jobs.js';
export type { AccountStore, CreateProjectResult } from './ports/store/accounts.js';
export type { ApiKeyStore, CreateApiKeyResult } from './ports/store/api-keys.js';
export {
  assembleStore,
  composePort,
  createJobWakeups,
  durableWritesOf,
  flushLayer,
  type JobWakeups,
  jobWakeupLayer,
  type PortLayer,
  type StoreWriteDuties,
} from './ports/store/assemble.js';
export type { BrowserStore, DisconnectBrowserResult, ReapedBrowser } from './ports/store/browsers.js';
export type { AppliedReceipts, DeliveryStore, PendingDeliveries } from './ports/store/deliveries.js';
export {
  STORE_DUTIES,
  type StoreDurability,
  type StoreJobDuty,
  type StoreMethodDuties,
  type StoreMethodKind,
  storeMethodsWhere,
} from './ports/store/duties.js';
export type {
  IdempotencyInput,
  IdempotencyLookup,
  IdempotencyStore,
  StoredResponse,
} from './ports/store/idempotency.js';
export type { JobStore } from './ports/store/jobs.js';
export type { MaintenanceStore } from './ports/store/maintenance.js';
export type {
  CreateNotificationInput,
  CreateNotificationResult,
  NotificationStore,
} from './ports/store/notifications.js';
export type {
  ListNotificationsInput,
  ListRecipientsInput,
  ProjectAdminStore,
  RecipientSummary,
  SearchProjectsInput,
  SearchProjectsResult,
} from './ports/store/project-admin.js';
export type {
  StoredSecret,
  StoredSecretColumn,
  StoredSecretCursor,
  StoredSecretStore,
  StoredSecretTable,
} from './ports/store/stored-secrets.js';
export type { UsageStore } from './ports/store/usage.js';
export type { Store, StoreCapabilities, StoreMethod } from './ports/store.js';
export type { PushStore, PutPushSubscriptionResult } from './push/store.js';
export { ensureVapidKeys } from './push/vapid-keys.js';
export {
  DEFAULT_REQUEST_LOG_RETENTION_DAYS,
  type ListRequestLogInput,
  type RequestLogBody,
  type RequestLogEntry,
  type RequestLogSearch,
  type RequestLogStatusClass,
  type RequestLogStore,
} from './request-log/store.js';
export { idTimeFloor } from './shared/ids.js';
export { utcDay } from './shared/time.js';
export type {
  PostgresTransactionalSends,
  SqliteTransactionalSends,
  TransactionalSends,
} from './transactions/transaction.js';
export type {
  CreateWebhookEndpointResult,
  WebhookEndpointRecord,
  WebhookEndpointStatus,
  WebhookEndpointStore,
} from './webhooks/endpoint-store.js';
export {
  ATTEMPT_EVENT_SUBSCRIPTIONS,
  type AttemptChange,
  anyEndpointWants,
  type BrowserConnectedChange,
  type BrowserDisconnectedChange,
  type BrowserDisconnectedReason,
  type InboxReadChange,
  isNotificationChange,
  type UnreadReminderChange,
  WEBHOOK_MESSAGE_RETENTION_MS,
  type WebhookChange,
  webhookJobOf,
  webhookMessagesOf,
} from './webhooks/events.js';
export type {
  ListWebhookMessagesInput,
  NewWebhookMessage,
  RecordedWebhookAttempt,
  RecordWebhookAttemptInput,
  WebhookAttemptOutcome,
  WebhookMessageAttemptRecord,
  WebhookMessageRecord,
  WebhookMessageStatus,
  WebhookMessageStore,
  WebhookMessageWithAttempts,
} from './webhooks/message-store.js';
