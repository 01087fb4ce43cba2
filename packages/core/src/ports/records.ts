/** Times in records are epoch milliseconds; the HTTP layer renders them as RFC 3339 UTC strings. */

/** The mode of an API key: live keys deliver and count toward usage, test keys only validate. */
export type KeyMode = 'live' | 'test';

/** An account holds up to ten projects. */
export interface AccountRecord {
  id: string;
  email: string;
  verified: boolean;
  createdAt: number;
}

/** A project holds keys, recipients, browsers and notifications. */
export interface ProjectRecord {
  id: string;
  accountId: string;
  name: string;
  suspended: boolean;
  createdAt: number;
  suspendedAt: number | null;
  /** Why it was suspended, as the operator wrote it (its owner is shown it); null when not suspended or none given. */
  suspendedReason: string | null;
  /** Who suspended it: an operator's email, or the name an operator gave the CLI; null when not suspended or unknown. */
  suspendedBy: string | null;
}

/** An API key as stored: never the key itself, only its SHA-256 and its first 12 characters. */
export interface ApiKeyRecord {
  id: string;
  projectId: string;
  prefix: string;
  mode: KeyMode;
  name: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** What one hash lookup of a presented API key yields: the key and the project it belongs to. */
export interface ApiKeyLookup {
  key: ApiKeyRecord;
  project: ProjectRecord;
}

/** The content a customer sends, after validation and defaults. */
export interface NotificationContent {
  title: string;
  body: string | null;
  url: string | null;
  icon: string | null;
  tag: string | null;
  data: Record<string, unknown> | null;
  ttl: number;
}

/** A notification as stored. */
export interface NotificationRecord extends NotificationContent {
  id: string;
  projectId: string;
  mode: KeyMode;
  recipient: string;
  createdAt: number;
  expiresAt: number;
  /**
   * Where the send came from, kept for a dashboard's view of one send: the id of the API key that
   * sent it, the request's id (`Request-Id`) and its `Idempotency-Key` (null without one). Never
   * part of the public notification object. Sends recorded before these were kept read back
   * with all three null.
   */
  apiKeyId: string | null;
  requestId: string | null;
  idempotencyKey: string | null;
}

/** The status of one delivery attempt (docs/api.md#attempt-states). */
export type AttemptStatus = 'accepted' | 'sent' | 'delivered' | 'expired' | 'failed';

/** Why an attempt ended without a delivery receipt. */
export type AttemptReason = 'browser_disconnected' | 'browser_stale' | 'ttl_expired' | 'push_rejected';

/**
 * How an attempt went out to its browser: written to its event stream, answered to its poll, or
 * accepted by the push service of its browser's Web Push subscription.
 */
export type AttemptPath = 'stream' | 'poll' | 'push';

/** One delivery attempt: one per connected browser of the recipient, per notification. */
export interface AttemptRecord {
  id: string;
  notificationId: string;
  browserId: string;
  /** Position of this attempt in its browser's stream; event ids are `<browser_id>.<seq>`. */
  seq: number;
  status: AttemptStatus;
  final: boolean;
  acceptedAt: number;
  /**
   * When it went out (its stream wrote it, its poll was answered, its push service accepted it);
   * never after `deliveredAt` nor any receipt's time, which prove it was sent by then.
   */
  sentAt: number | null;
  /**
   * The path it went out by, recorded with `sentAt`; null while not sent, when a `delivered`
   * receipt came before the record of sending, or for attempts sent before this was kept.
   */
  sentVia: AttemptPath | null;
  /** When the browser's push service accepted a Web Push message of this attempt (its 201); null if none did. */
  pushAcceptedAt: number | null;
  /** When the browser had it (its `delivered` receipt); never after `displayedAt`, `clickedAt` or `dismissedAt`. */
  deliveredAt: number | null;
  failedAt: number | null;
  expiredAt: number | null;
  reason: AttemptReason | null;
  displayedAt: number | null;
  clickedAt: number | null;
  dismissedAt: number | null;
}

/** A notification with its attempts, as read back. */
export interface NotificationWithAttempts {
  notification: NotificationRecord;
  attempts: AttemptRecord[];
}

/** Why a browser stopped being connected. */
export type DisconnectReason = 'browser_disconnected' | 'browser_stale';

/** A connected (or formerly connected) browser of a recipient. */
export interface BrowserRecord {
  id: string;
  projectId: string;
  recipient: string;
  secretHash: string;
  connected: boolean;
  disconnectReason: DisconnectReason | null;
  createdAt: number;
  lastSeenAt: number;
  disconnectedAt: number | null;
}

/** How a browser registered: by opening the event stream (GET /v1/connect) or by the poll (POST). */
export type BrowserConnectedBy = 'stream' | 'poll';

/**
 * A browser as a dashboard shows it: its record and what the send path keeps apart from it.
 * `userAgent` and `connectedBy` are null for browsers registered before they were kept.
 */
export interface BrowserView {
  browser: BrowserRecord;
  /** The `User-Agent` of the request that registered it, at most 256 characters. */
  userAgent: string | null;
  connectedBy: BrowserConnectedBy | null;
  /** An instance holds an open event stream of it now. */
  streamOpen: boolean;
  /** Its push subscription's endpoint (a capability URL: never to be shown whole), or null. */
  pushEndpoint: string | null;
}

/** A browser and its project, from one lookup. */
export interface BrowserLookup {
  browser: BrowserRecord;
  project: ProjectRecord;
}

/** A connect token, found by the SHA-256 of its value. */
export interface ConnectTokenLookup {
  projectId: string;
  recipient: string;
  expiresAt: number;
  project: ProjectRecord;
}

/** What a browser's stream or poll receives for one attempt that is not final. */
export interface Delivery {
  attemptId: string;
  browserId: string;
  seq: number;
  notificationId: string;
  title: string;
  body: string | null;
  url: string | null;
  icon: string | null;
  tag: string | null;
  data: Record<string, unknown> | null;
  createdAt: number;
  expiresAt: number;
  /** The version of the recipient's inbox the item of this send was made at; null when unknown. */
  inboxVersion: number | null;
}

/** The receipt kinds a browser posts to /v1/events. */
export type ReceiptType = 'delivered' | 'displayed' | 'clicked' | 'dismissed';

/** One receipt, with its time already clamped to the server's clock. */
export interface Receipt {
  type: ReceiptType;
  attemptId: string;
  at: number;
}

/** Usage of one project on one UTC day. */
export interface UsageDay {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  notifications: number;
  attempts: number;
}

/**
 * What a project's sends of one UTC day and one mode came to, read from the notifications and
 * their attempts (test mode included, unlike {@link UsageDay}).
 */
export interface UsageBreakdownDay {
  /** `YYYY-MM-DD`, UTC, of the notifications' creation. */
  day: string;
  mode: KeyMode;
  notifications: number;
  attempts: number;
  /** Attempts written to a browser's stream (`sent_at` set). */
  sent: number;
  /** Attempts the browser confirmed (`delivered_at` set). */
  delivered: number;
}

/** An attempt that became final without a receipt, and the browser it belonged to. */
export interface EndedAttempt {
  attemptId: string;
  browserId: string;
}

/**
 * A browser's Web Push subscription (docs/web-push.md): where its push service takes messages,
 * and the browser's keys that each message is encrypted for. One per browser.
 */
export interface PushSubscriptionRecord {
  browserId: string;
  projectId: string;
  endpoint: string;
  /** The browser's P-256 public key, uncompressed, base64url (65 bytes). */
  p256dh: string;
  /** The browser's authentication secret, base64url (16 bytes). */
  auth: string;
  createdAt: number;
  updatedAt: number;
  /** When the push service said the subscription ends (`expirationTime`); null when it did not. */
  expiresAt: number | null;
}

/** The deployment's VAPID key pair (base64url: the public key uncompressed, 65 bytes; the private 32). */
export interface VapidKeyRecord {
  publicKey: string;
  /** As stored: sealed under the secrets key when one is set (docs/deploy.md#secrets-at-rest). */
  privateKey: string;
  createdAt: number;
}
