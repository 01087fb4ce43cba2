export { TidingsClient } from './client.js';
export type { ConnectTokens } from './connect-tokens.js';
export {
  type ClientErrorCode,
  type ServerErrorCode,
  TidingsError,
  type TidingsErrorCode,
  type TidingsErrorInit,
  TidingsWaitTimeoutError,
} from './errors.js';
export type { Inbox } from './inbox.js';
export type { Notifications, SendOptions, WaitOptions } from './notifications.js';
export type { TidingsClientOptions } from './options.js';
export type { RequestOptions } from './request.js';
export type * from './types.js';
export { type VerifyWebhookOptions, verifyWebhook, type WebhookHeadersInput, webhooks } from './webhooks.js';
