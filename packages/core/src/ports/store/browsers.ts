import type {
  BrowserConnectedBy,
  BrowserLookup,
  BrowserRecord,
  BrowserView,
  ConnectTokenLookup,
  DisconnectReason,
} from '../records.js';

/** A browser that {@link BrowserStore.reapStaleBrowsers} disconnected as stale. */
export interface ReapedBrowser {
  browserId: string;
  /** Its attempts that were not final and became `failed` (reason `browser_stale`). */
  failedAttemptIds: string[];
}

/** Outcome of {@link BrowserStore.disconnectBrowser}. */
export type DisconnectBrowserResult =
  | { kind: 'disconnected'; failedAttemptIds: string[] }
  | { kind: 'already-disconnected' }
  | { kind: 'not-found' };

/** Connect tokens and the connected browsers of recipients: registered, found, seen, held by an instance's streams, released, disconnected and reaped. */
export interface BrowserStore {
  /** Stores a connect token by hash; the recipient exists from then on. */
  createConnectToken(input: {
    hash: string;
    projectId: string;
    recipient: string;
    now: number;
    expiresAt: number;
  }): Promise<void>;
  findConnectToken(hash: string): Promise<ConnectTokenLookup | null>;
  /** Registers a new connected browser of a recipient. */
  registerBrowser(input: {
    id: string;
    projectId: string;
    recipient: string;
    secretHash: string;
    now: number;
    /** The registering request's `User-Agent`, kept for the dashboard (cut to 256 characters). */
    userAgent?: string | null;
    /** How it registered: the event stream or the poll. */
    connectedBy?: BrowserConnectedBy | null;
  }): Promise<BrowserRecord>;
  findBrowser(id: string): Promise<BrowserLookup | null>;
  /** One browser of a project as a dashboard shows it; null when unknown or another project's. */
  getBrowserView(input: { projectId: string; browserId: string }): Promise<BrowserView | null>;
  /**
   * A recipient of a project with its newest `limit` browsers (connected or not), newest first;
   * null when the project has no such recipient (no connect token was ever minted for it).
   */
  listRecipientBrowsers(input: {
    projectId: string;
    recipient: string;
    limit: number;
  }): Promise<{ createdAt: number; browsers: BrowserView[] } | null>;
  /** Disconnects a browser: its attempts that are not final become `failed` with the reason. */
  disconnectBrowser(input: {
    browserId: string;
    reason: DisconnectReason;
    now: number;
  }): Promise<DisconnectBrowserResult>;
  /** Records that these browsers were seen (an open stream or a poll) at `now`. */
  touchBrowsers(input: { browserIds: string[]; now: number }): Promise<void>;
  /**
   * Records that the instance `instanceId` holds open streams of these connected browsers, and
   * that the instance itself was seen at `now`. A browser held by an instance counts as seen
   * whenever its holder was last seen, so an instance keeps every browser it holds fresh with
   * one write of its own (calling this again, with its browsers or none). Only a browser held by
   * no instance or by another one is written: it then becomes this instance's, seen at `now`.
   */
  holdBrowsers(input: { instanceId: string; browserIds: string[]; now: number }): Promise<void>;
  /**
   * The instance no longer holds open streams of these browsers: each is seen at `now`, and one
   * that this instance held is held by none (another instance that still has a stream of it
   * takes it back with its next {@link holdBrowsers}).
   */
  releaseBrowsers(input: { instanceId: string; browserIds: string[]; now: number }): Promise<void>;
  /**
   * Disconnects (reason `browser_stale`) connected browsers last seen before `seenBefore`, and
   * returns each with the attempts that failed with it. A held browser's last sight is its
   * holder's when that is later: it is stale only once its instance was not seen since
   * `seenBefore` either (an instance that stopped without releasing its browsers), and its
   * holder is then forgotten. A browser with a push subscription is kept while it was seen since
   * `pushSeenBefore` (default `seenBefore`): Web Push reaches it without a stream. A
   * disconnection deletes the browser's push subscription.
   */
  reapStaleBrowsers(input: { seenBefore: number; now: number; pushSeenBefore?: number }): Promise<ReapedBrowser[]>;
}
