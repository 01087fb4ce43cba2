/**
 * `@tidings/core`: what an embedding, a hub, a limiter or an operator tool uses. Each name is
 * listed on purpose: this file is the package's public surface. What only a store needs to be
 * built (its roles, its write duties, the helpers every store shares) is `@tidings/core/store`;
 * the conformance kits are `@tidings/core/testing`; Node.js I/O is `@tidings/core/node`.
 */

export {
  type AdminApi,
  MAX_INBOX_RETENTION_DAYS,
  MAX_SUSPENSION_REASON_LENGTH,
  type SuspensionChange,
} from './admin/api.js';
export {
  BROWSER_ATTEMPTS_SCAN,
  type BrowserAttemptObject,
  type BrowserDetail,
  type BrowserObject,
  type ListRecipientsOptions,
  RECIPIENT_BROWSERS_SHOWN,
  type RecipientDetail,
  type RecipientSummaryObject,
  type RecipientViews,
} from './admin/recipients.js';
export {
  type AdminViews,
  type ListNotificationsOptions,
  MAX_SEARCH_QUERY_LENGTH,
  MAX_USAGE_RANGE_DAYS,
  type NotificationDetail,
  type ProjectSearchPage,
  type PushRequestObject,
  type SearchProjectsOptions,
  type UsageBreakdown,
  type UsageBreakdownDayObject,
} from './admin/views.js';
export {
  attemptObjectSchema,
  attemptStatusSchema,
  browserObjectSchema,
  connectTokenObjectSchema,
  deliveryListSchema,
  deliveryPayloadSchema,
  fieldErrorSchema,
  notificationObjectSchema,
  problemSchema,
  pushSubscriptionObjectSchema,
  readyEventSchema,
  receiptBatchSchema,
} from './delivery/object-schemas.js';
export {
  type AccountObject,
  type ApiKeyObject,
  type AttemptObject,
  type CreatedApiKeyObject,
  isoTime,
  type NotificationObject,
  notificationObject,
  type ProjectObject,
  type UsageObject,
} from './delivery/serialize.js';
export type {
  AnsweredRequest,
  Feature,
  FeatureHost,
  FeatureParts,
  FeatureSettings,
  ReceiptsApplied,
  SendBeingRecorded,
} from './features.js';
export { inbox } from './inbox/feature.js';
export { buildOpenApiDocument, type OpenApiDocumentOptions } from './openapi/document.js';
export {
  defaultLimits,
  type LimitsOptions,
  type ResolvedLimits,
  type ResolvedOptions,
  type ResolvedOptionsWith,
  resolveOptions,
  type TidingsJobsOptions,
  type TidingsOptions,
} from './options.js';
export {
  type ErrorCode,
  type ErrorStatus,
  errorCodes,
  type FieldError,
  type Problem,
  TidingsError,
  toProblem,
} from './pipeline/errors.js';
export { type Clock, createManualClock, type ManualClock, systemClock } from './ports/clock.js';
export type { EventSink, EventSinkListener, EventStreamTarget, OpenedEventStream } from './ports/event-sink.js';
export { type Hub, type HubMessage, hubMessageBrowserId } from './ports/hub.js';
export type { LimitDecision, Limiter, LimiterUnavailable, LimitScope, ScopeState } from './ports/limiter.js';
export { createConsoleLogger, type LogFields, type Logger, silentLogger } from './ports/logger.js';
export {
  createConsoleMailer,
  createMemoryMailer,
  type Mailer,
  type MailMessage,
  type MemoryMailer,
} from './ports/mailer.js';
export { type EndedAttemptStatus, type Metrics, noopMetrics, type StoreOperationOutcome } from './ports/metrics.js';
export type {
  AccountRecord,
  ApiKeyLookup,
  ApiKeyRecord,
  AttemptPath,
  AttemptReason,
  AttemptRecord,
  AttemptStatus,
  BrowserConnectedBy,
  BrowserLookup,
  BrowserRecord,
  BrowserView,
  ConnectTokenLookup,
  Delivery,
  DisconnectReason,
  EndedAttempt,
  KeyMode,
  NotificationContent,
  NotificationRecord,
  NotificationWithAttempts,
  ProjectRecord,
  PushSubscriptionRecord,
  Receipt,
  ReceiptType,
  UsageBreakdownDay,
  UsageDay,
  VapidKeyRecord,
} from './ports/records.js';
export type { Store } from './ports/store.js';
export type { VapidAdminApi, VapidKeyObject } from './push/admin.js';
export type { PushOptions } from './push/options.js';
export {
  type ListRequestsOptions,
  MAX_REQUEST_SEARCH_LENGTH,
  type RequestLogAdminApi,
  type RequestLogObject,
} from './request-log/admin.js';
export { requestLog } from './request-log/feature.js';
export type { RequestLogOptions } from './request-log/options.js';
export { READ_COUNT_NOTIFICATIONS, READ_COUNT_PATH } from './request-log/writer.js';
export { createMemoryHub } from './shared/hub/memory-hub.js';
export { type IdPrefix, isId, newId } from './shared/ids.js';
export {
  backoffDelay,
  createJobRunner,
  type JobBackoff,
  type JobContext,
  JobError,
  type JobHandler,
  type JobRunner,
  type JobRunnerOptions,
} from './shared/job-runner.js';
export { ipScopeKey, resolveClientIp } from './shared/limiter/client-ip.js';
export { createMemoryLimiter, type MemoryLimiter, type MemoryLimiterOptions } from './shared/limiter/memory-limiter.js';
export {
  RATE_LIMIT_HEADER_FORMS,
  type RateLimitHeaderForm,
  rateLimitHeaders,
  retryAfterSeconds,
} from './shared/limiter/rate-limit-headers.js';
export { instrumentLimiter } from './shared/metrics/instrument-limiter.js';
export { instrumentStore } from './shared/metrics/instrument-store.js';
export type {
  JsonSchema,
  OpenApiDocument,
  OpenApiHeader,
  OpenApiMediaType,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiReference,
  OpenApiResponse,
} from './shared/openapi/types.js';
export {
  generateSecretKey,
  parseSecretKey,
  parseSecretKeys,
  SECRET_KEY_BYTES,
  type SecretKey,
  SecretKeyError,
} from './shared/sealing/keyring.js';
export {
  createSecretSealer,
  isSealed,
  type OpenedSecret,
  type SecretPlace,
  type SecretSealer,
  sealedKeyId,
  unsealedSecrets,
} from './shared/sealing/sealer.js';
export {
  describeStoredSecret,
  type PreparedSecrets,
  prepareStoredSecrets,
  type ResealOptions,
  type ResealOutcome,
  resealStoredSecrets,
  type SecretsSurvey,
  secretsRefusal,
  surveyStoredSecrets,
} from './shared/sealing/stored-secrets.js';
export { apiKeyPrefix, hashSecret, isWellFormedApiKey } from './shared/secrets.js';
export { createTidings, type RequestContext, type Tidings } from './tidings.js';
export type {
  NotificationsApi,
  PreparedSqliteSend,
  SendInput,
  SendOptions,
  SendResult,
} from './transactions/in-process.js';
export type { PostgresTransaction, SqliteStatement, SqliteTransaction } from './transactions/transaction.js';
export {
  MAX_WEBHOOK_ENDPOINTS_PER_PROJECT,
  WEBHOOK_EVENT_TYPES,
  type WebhookAdminApi,
  type WebhookEndpointObject,
} from './webhooks/endpoint-admin.js';
export type { WebhookEvent } from './webhooks/events.js';
export type {
  WebhookMessageAttemptObject,
  WebhookMessageDetailObject,
  WebhookMessageObject,
  WebhookMessagesAdminApi,
} from './webhooks/message-admin.js';
export {
  generateWebhookSecret,
  isWellFormedWebhookSecret,
  signWebhook,
  WEBHOOK_SECRET_PREFIX,
  type WebhookHeaders,
  webhookSignature,
} from './webhooks/signature.js';
