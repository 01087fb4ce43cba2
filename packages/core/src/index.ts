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
  type ListRequestsOptions,
  MAX_REQUEST_SEARCH_LENGTH,
  type RequestLogAdminApi,
  type RequestLogObject,
} from './admin/request-log.js';
export type { VapidAdminApi, VapidKeyObject } from './admin/vapid.js';
export {
  type AdminViews,
  type ListNotificationsOptions,
  MAX_SEARCH_QUERY_LENGTH,
  MAX_USAGE_RANGE_DAYS,
  type NotificationDetail,
  type ProjectSearchPage,
  type SearchProjectsOptions,
  type UsageBreakdown,
  type UsageBreakdownDayObject,
} from './admin/views.js';
export type {
  WebhookMessageAttemptObject,
  WebhookMessageDetailObject,
  WebhookMessageObject,
  WebhookMessagesAdminApi,
} from './admin/webhook-messages.js';
export {
  MAX_WEBHOOK_ENDPOINTS_PER_PROJECT,
  WEBHOOK_EVENT_TYPES,
  type WebhookAdminApi,
  type WebhookEndpointObject,
} from './admin/webhooks.js';
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
} from './api/object-schemas.js';
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
} from './api/serialize.js';
export {
  type ErrorCode,
  type ErrorStatus,
  errorCodes,
  type FieldError,
  type Problem,
  TidingsError,
  toProblem,
} from './errors.js';
export { createMemoryHub } from './hub/memory-hub.js';
export {
  backoffDelay,
  createJobRunner,
  type JobBackoff,
  type JobContext,
  JobError,
  type JobHandler,
  type JobRunner,
  type JobRunnerOptions,
} from './jobs/runner.js';
export { ipScopeKey, resolveClientIp } from './limiter/client-ip.js';
export { createMemoryLimiter, type MemoryLimiter, type MemoryLimiterOptions } from './limiter/memory-limiter.js';
export {
  RATE_LIMIT_HEADER_FORMS,
  type RateLimitHeaderForm,
  rateLimitHeaders,
  retryAfterSeconds,
} from './limiter/rate-limit-headers.js';
export { instrumentLimiter } from './metrics/instrument-limiter.js';
export { instrumentStore } from './metrics/instrument-store.js';
export { buildOpenApiDocument, type OpenApiDocumentOptions } from './openapi/document.js';
export type {
  JsonSchema,
  OpenApiDocument,
  OpenApiHeader,
  OpenApiMediaType,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiReference,
  OpenApiResponse,
} from './openapi/types.js';
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
export type { Store } from './ports/store.js';
export type { PostgresTransaction, SqliteStatement, SqliteTransaction } from './ports/transactions.js';
export type { PushOptions } from './push/options.js';
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
} from './records.js';
export type { RequestLogOptions } from './request-log/options.js';
export type { NotificationsApi, PreparedSqliteSend, SendInput, SendOptions, SendResult } from './send/in-process.js';
export { createTidings, type RequestContext, type Tidings } from './tidings.js';
export { type IdPrefix, isId, newId } from './util/ids.js';
export { apiKeyPrefix, hashSecret, isWellFormedApiKey } from './util/secrets.js';
export type { WebhookEvent } from './webhooks/events.js';
export {
  generateWebhookSecret,
  isWellFormedWebhookSecret,
  signWebhook,
  WEBHOOK_SECRET_PREFIX,
  type WebhookHeaders,
  webhookSignature,
} from './webhooks/signature.js';
