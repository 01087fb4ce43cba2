/**
 * `@tidings/browser`: connects a page to Tidings and hands it the recipient's notifications.
 * @packageDocumentation
 */
export { connect } from './connect.js';
export { TidingsError, type TidingsErrorCode, type TidingsErrorInit } from './errors.js';
export {
  emptyInboxList,
  type InboxList,
  type InboxListRead,
  isBehind,
  matchesFilter,
  receiveFirstPage,
  receiveItem,
  receiveNextPage,
  receiveUpdate,
  receiveVersion,
} from './inbox-list.js';
export type {
  TidingsInbox,
  TidingsInboxAction,
  TidingsInboxCounts,
  TidingsInboxEvent,
  TidingsInboxFilter,
  TidingsInboxItem,
  TidingsInboxListOptions,
  TidingsInboxPage,
  TidingsInboxUpdate,
} from './inbox-types.js';
export type { ConnectOptions } from './options.js';
export type {
  TidingsCloseReason,
  TidingsConnection,
  TidingsNotification,
  TidingsReceiptType,
  TidingsStatus,
  TidingsStatusDetail,
  TidingsTransport,
} from './types.js';
