import type { DisconnectReason, Store } from '@tidings/core';
import type { BrowserStore, DisconnectBrowserResult, ReapedBrowser, WebhookChange } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import type { NotificationCache } from './notification-cache.js';
import {
  type BrowserRow,
  type BrowserViewRow,
  browserFromRow,
  browserViewFromRow,
  JOINED_PROJECT_COLUMNS,
  type JoinedProjectRow,
  joinedProject,
} from './rows.js';
import type { RecordWebhookEvents } from './webhook-messages.js';

interface ConnectTokenRow extends JoinedProjectRow {
  project_id: string;
  recipient: string;
  expires_at: number;
}

/** Connect tokens, browsers, and the end of a browser's connection. */
export function browserOperations(
  db: Database.Database,
  cache: NotificationCache,
  recordEvents: RecordWebhookEvents,
): BrowserStore {
  const ensureRecipient = db.prepare<[string, string, number]>(
    'INSERT INTO recipients (project_id, recipient, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const insertToken = db.prepare<[string, string, string, number, number]>(
    'INSERT INTO connect_tokens (hash, project_id, recipient, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  );
  const selectToken = db.prepare<[string], ConnectTokenRow>(
    `SELECT t.project_id, t.recipient, t.expires_at, ${JOINED_PROJECT_COLUMNS}
       FROM connect_tokens AS t JOIN projects AS p ON p.id = t.project_id
      WHERE t.hash = ?`,
  );
  const insertBrowser = db.prepare<
    [string, string, string, string, number, number, string | null, string | null],
    BrowserRow
  >(
    `INSERT INTO browsers (id, project_id, recipient, secret_hash, connected, created_at, last_seen_at, user_agent, connected_by)
     VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)
     RETURNING *`,
  );
  const selectBrowserView = db.prepare<[string, string], BrowserViewRow>(
    `SELECT b.*, s.endpoint AS push_endpoint
       FROM browsers AS b LEFT JOIN push_subscriptions AS s ON s.browser_id = b.id
      WHERE b.id = ? AND b.project_id = ?`,
  );
  const selectRecipient = db
    .prepare<[string, string], number>('SELECT created_at FROM recipients WHERE project_id = ? AND recipient = ?')
    .pluck();
  const selectRecipientBrowsers = db.prepare<[string, string, number], BrowserViewRow>(
    `SELECT b.*, s.endpoint AS push_endpoint
       FROM browsers AS b LEFT JOIN push_subscriptions AS s ON s.browser_id = b.id
      WHERE b.project_id = ? AND b.recipient = ?
      ORDER BY b.id DESC LIMIT ?`,
  );
  // One snapshot for the recipient and its browsers.
  const recipientBrowsers = db.transaction((projectId: string, recipient: string, limit: number) => {
    const createdAt = selectRecipient.get(projectId, recipient);
    if (createdAt === undefined) return null;
    return { createdAt, browsers: selectRecipientBrowsers.all(projectId, recipient, limit).map(browserViewFromRow) };
  });
  const selectBrowser = db.prepare<[string], BrowserRow & JoinedProjectRow>(
    `SELECT b.*, ${JOINED_PROJECT_COLUMNS}
       FROM browsers AS b JOIN projects AS p ON p.id = b.project_id
      WHERE b.id = ?`,
  );
  const selectConnected = db.prepare<[string], { connected: number; recipient: string }>(
    'SELECT connected, recipient FROM browsers WHERE id = ?',
  );
  const markDisconnected = db.prepare<[string, number, string]>(
    'UPDATE browsers SET connected = 0, disconnect_reason = ?, disconnected_at = ? WHERE id = ?',
  );
  const pendingAttempts = db
    .prepare<[string], string>('SELECT id FROM attempts WHERE browser_id = ? AND final = 0 ORDER BY seq')
    .pluck();
  const failPending = db.prepare<[string, number, string], { id: string; notification_id: string }>(
    `UPDATE attempts SET status = 'failed', final = 1, reason = ?, failed_at = ? WHERE browser_id = ? AND final = 0
     RETURNING id, notification_id`,
  );
  const touch = db.prepare<[number, string]>(
    'UPDATE browsers SET last_seen_at = max(last_seen_at, ?) WHERE id = ? AND connected = 1',
  );
  const renewInstance = db.prepare<[string, number]>(
    `INSERT INTO instances (id, seen_at) VALUES (?, ?)
     ON CONFLICT (id) DO UPDATE SET seen_at = max(seen_at, excluded.seen_at)`,
  );
  // Writes only a browser the store does not already have as held by this instance.
  const hold = db.prepare<[string, number, string, string]>(
    `UPDATE browsers SET held_by = ?, last_seen_at = max(last_seen_at, ?)
      WHERE id = ? AND connected = 1 AND held_by IS NOT ?`,
  );
  const release = db.prepare<[number, string, string]>(
    `UPDATE browsers SET last_seen_at = max(last_seen_at, ?), held_by = CASE WHEN held_by = ? THEN NULL ELSE held_by END
      WHERE id = ? AND connected = 1`,
  );
  const goneInstances = db.prepare<[number], { id: string; seen_at: number }>(
    'SELECT id, seen_at FROM instances WHERE seen_at < ?',
  );
  // The browsers of an instance not seen for the stale timeout, last seen when it was.
  const letGo = db.prepare<[number, string]>(
    'UPDATE browsers SET held_by = NULL, last_seen_at = max(last_seen_at, ?) WHERE held_by = ?',
  );
  const forgetInstance = db.prepare<[string]>('DELETE FROM instances WHERE id = ?');
  // A browser with a push subscription is reached without a stream: it is stale only once it
  // was not seen for the (longer) retention of push. A browser held by an instance is not.
  const staleBrowsers = db
    .prepare<[number, number], string>(
      `SELECT id FROM browsers AS b
        WHERE connected = 1 AND held_by IS NULL AND last_seen_at < ?
          AND (last_seen_at < ? OR NOT EXISTS (SELECT 1 FROM push_subscriptions AS s WHERE s.browser_id = b.id))
        ORDER BY last_seen_at, id`,
    )
    .pluck();
  const deleteSubscription = db.prepare<[string]>('DELETE FROM push_subscriptions WHERE browser_id = ?');

  /** The disconnection itself; callers run it inside their write transaction. */
  function disconnect(browserId: string, reason: DisconnectReason, now: number): DisconnectBrowserResult {
    const found = selectConnected.get(browserId);
    if (found === undefined) return { kind: 'not-found' };
    if (found.connected === 0) return { kind: 'already-disconnected' };
    const failedAttemptIds = pendingAttempts.all(browserId);
    const failed = failPending.all(reason, now, browserId);
    const notificationOf = new Map(failed.map((row) => [row.id, row.notification_id]));
    cache.forget(failed.map((row) => row.notification_id));
    markDisconnected.run(reason, now, browserId);
    deleteSubscription.run(browserId);
    const changes: WebhookChange[] = failedAttemptIds.map((attemptId) => ({
      kind: 'attempt',
      attemptId,
      notificationId: notificationOf.get(attemptId)!,
      ended: true,
    }));
    changes.push({ kind: 'browser-disconnected', browserId, recipient: found.recipient, at: now, reason });
    recordEvents(changes, now);
    return { kind: 'disconnected', failedAttemptIds };
  }

  const createToken = db.transaction(
    (input: { hash: string; projectId: string; recipient: string; now: number; expiresAt: number }) => {
      ensureRecipient.run(input.projectId, input.recipient, input.now);
      insertToken.run(input.hash, input.projectId, input.recipient, input.now, input.expiresAt);
    },
  );
  const register = db.transaction((input: Parameters<Store['registerBrowser']>[0]) => {
    ensureRecipient.run(input.projectId, input.recipient, input.now);
    const row = insertBrowser.get(
      input.id,
      input.projectId,
      input.recipient,
      input.secretHash,
      input.now,
      input.now,
      input.userAgent ?? null,
      input.connectedBy ?? null,
    )!;
    const browser = browserFromRow(row);
    recordEvents(
      [{ kind: 'browser-connected', browserId: browser.id, recipient: browser.recipient, at: input.now }],
      input.now,
    );
    return browser;
  });
  const disconnectOne = db.transaction((input: Parameters<Store['disconnectBrowser']>[0]) =>
    disconnect(input.browserId, input.reason, input.now),
  );
  const touchAll = db.transaction((browserIds: string[], now: number) => {
    for (const id of browserIds) touch.run(now, id);
  });
  const holdAll = db.transaction((instanceId: string, browserIds: string[], now: number) => {
    renewInstance.run(instanceId, now);
    for (const id of browserIds) hold.run(instanceId, now, id, instanceId);
  });
  const releaseAll = db.transaction((instanceId: string, browserIds: string[], now: number) => {
    for (const id of browserIds) release.run(now, instanceId, id);
  });
  const reap = db.transaction((seenBefore: number, pushSeenBefore: number, now: number): ReapedBrowser[] => {
    for (const instance of goneInstances.all(seenBefore)) {
      letGo.run(instance.seen_at, instance.id);
      forgetInstance.run(instance.id);
    }
    const reaped: ReapedBrowser[] = [];
    for (const browserId of staleBrowsers.all(seenBefore, pushSeenBefore)) {
      const result = disconnect(browserId, 'browser_stale', now);
      if (result.kind === 'disconnected') reaped.push({ browserId, failedAttemptIds: result.failedAttemptIds });
    }
    return reaped;
  });

  return {
    async createConnectToken(input) {
      createToken.immediate(input);
    },
    async findConnectToken(hash) {
      const row = selectToken.get(hash);
      if (!row) return null;
      return {
        projectId: row.project_id,
        recipient: row.recipient,
        expiresAt: row.expires_at,
        project: joinedProject(row),
      };
    },
    async registerBrowser(input) {
      return register.immediate(input);
    },
    async findBrowser(id) {
      const row = selectBrowser.get(id);
      return row ? { browser: browserFromRow(row), project: joinedProject(row) } : null;
    },
    async getBrowserView({ projectId, browserId }) {
      const row = selectBrowserView.get(browserId, projectId);
      return row ? browserViewFromRow(row) : null;
    },
    async listRecipientBrowsers({ projectId, recipient, limit }) {
      return recipientBrowsers(projectId, recipient, limit);
    },
    async disconnectBrowser(input) {
      return disconnectOne.immediate(input);
    },
    async touchBrowsers({ browserIds, now }) {
      if (browserIds.length > 0) touchAll.immediate(browserIds, now);
    },
    async holdBrowsers({ instanceId, browserIds, now }) {
      holdAll.immediate(instanceId, browserIds, now);
    },
    async releaseBrowsers({ instanceId, browserIds, now }) {
      if (browserIds.length > 0) releaseAll.immediate(instanceId, browserIds, now);
    },
    async reapStaleBrowsers({ seenBefore, now, pushSeenBefore }) {
      return reap.immediate(seenBefore, Math.min(pushSeenBefore ?? seenBefore, seenBefore), now);
    },
  };
}
