import type { BrowserRecord, BrowserView, DisconnectReason } from '@tidings/core';
import type { BrowserStore, DisconnectBrowserResult, ReapedBrowser, WebhookChange } from '@tidings/core/store';
import type { Pool, PoolClient } from 'pg';
import { BROWSER, BROWSER_OF_B, JOINED_PROJECT, type JoinedProjectRow, joinedProject } from './columns.js';
import { run, type Sql, transaction } from './db.js';
import type { RecordWebhookEvents } from './webhook-messages.js';

/** A browser's row as the dashboard's reads select it. */
type BrowserViewRow = BrowserRecord & Omit<BrowserView, 'browser'>;

/** Splits a view row into the browser's record and the rest. */
function browserViewOf(row: BrowserViewRow): BrowserView {
  const { userAgent, connectedBy, streamOpen, pushEndpoint, ...browser } = row;
  return { browser, userAgent, connectedBy, streamOpen, pushEndpoint };
}

interface ConnectTokenRow extends JoinedProjectRow {
  project_id: string;
  recipient: string;
  expires_at: number;
}

/**
 * Connect tokens, browsers, and the end of a browser's connection. A disconnection locks the
 * browser's row first and fails its pending attempts in a later statement: a send holds that
 * lock from raising the browser's sequence until it commits, so the later statement, on a fresh
 * snapshot, sees every attempt a send committed before, and no send adds one after.
 */
export function browserOperations(pool: Pool, sql: Sql, recordEvents: RecordWebhookEvents): BrowserStore {
  const { t, statement } = sql;
  const insertToken = statement(
    'insert_token',
    `WITH recipient AS (
       INSERT INTO ${t('recipients')} (project_id, recipient, created_at) VALUES ($2, $3, $4) ON CONFLICT DO NOTHING
     )
     INSERT INTO ${t('connect_tokens')} (hash, project_id, recipient, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
  );
  const selectToken = statement(
    'select_token',
    `SELECT c.project_id, c.recipient, c.expires_at, ${JOINED_PROJECT}
       FROM ${t('connect_tokens')} AS c JOIN ${t('projects')} AS p ON p.id = c.project_id
      WHERE c.hash = $1`,
  );
  const insertBrowser = statement(
    'insert_browser',
    `WITH recipient AS (
       INSERT INTO ${t('recipients')} (project_id, recipient, created_at) VALUES ($2, $3, $5) ON CONFLICT DO NOTHING
     )
     INSERT INTO ${t('browsers')}
       (id, project_id, recipient, secret_hash, connected, created_at, last_seen_at, user_agent, connected_by)
     VALUES ($1, $2, $3, $4, true, $5, $5, $6, $7)
     RETURNING ${BROWSER}`,
  );
  // The same, done only while the project has no enabled webhook endpoint: a browser of such a
  // project is registered by this one statement, outside a transaction (no `browser.connected`
  // to record with it). With an endpoint it writes nothing, and the registration runs again in a
  // transaction with its event. The endpoints are read by the statement's own snapshot, as the
  // transaction's read of them would be.
  const insertBrowserUnhooked = statement(
    'insert_browser_unhooked',
    `WITH unhooked AS (
       SELECT NOT EXISTS (
         SELECT 1 FROM ${t('webhook_endpoints')} WHERE project_id = $2::text AND status = 'enabled') AS yes
     ), recipient AS (
       INSERT INTO ${t('recipients')} (project_id, recipient, created_at)
       SELECT $2::text, $3::text, $5::int8 FROM unhooked WHERE unhooked.yes ON CONFLICT DO NOTHING
     )
     INSERT INTO ${t('browsers')}
       (id, project_id, recipient, secret_hash, connected, created_at, last_seen_at, user_agent, connected_by)
     SELECT $1::text, $2::text, $3::text, $4::text, true, $5::int8, $5::int8, $6::text, $7::text
       FROM unhooked WHERE unhooked.yes
     RETURNING ${BROWSER}`,
  );
  const selectBrowser = statement(
    'select_browser',
    `SELECT b.id, b.project_id AS "projectId", b.recipient, b.secret_hash AS "secretHash", b.connected,
            b.disconnect_reason AS "disconnectReason", b.created_at AS "createdAt", b.last_seen_at AS "lastSeenAt",
            b.disconnected_at AS "disconnectedAt", ${JOINED_PROJECT}
       FROM ${t('browsers')} AS b JOIN ${t('projects')} AS p ON p.id = b.project_id
      WHERE b.id = $1`,
  );
  // What a dashboard shows of browsers: each with its push subscription's endpoint.
  const VIEW = `${BROWSER_OF_B}, b.user_agent AS "userAgent", b.connected_by AS "connectedBy",
       (b.connected AND b.held_by IS NOT NULL) AS "streamOpen", s.endpoint AS "pushEndpoint"`;
  const selectBrowserView = statement(
    'select_browser_view',
    `SELECT ${VIEW}
       FROM ${t('browsers')} AS b LEFT JOIN ${t('push_subscriptions')} AS s ON s.browser_id = b.id
      WHERE b.id = $1 AND b.project_id = $2`,
  );
  const selectRecipientBrowsers = statement(
    'select_recipient_browsers',
    `SELECT r.created_at AS "recipientCreatedAt", ${VIEW}
       FROM ${t('recipients')} AS r
       LEFT JOIN LATERAL (
         SELECT * FROM ${t('browsers')} AS b0
          WHERE b0.project_id = r.project_id AND b0.recipient = r.recipient
          ORDER BY b0.id DESC LIMIT $3
       ) AS b ON true
       LEFT JOIN ${t('push_subscriptions')} AS s ON s.browser_id = b.id
      WHERE r.project_id = $1 AND r.recipient = $2
      ORDER BY b.id DESC`,
  );
  // A concurrent disconnection holds the row until it commits; this one then re-reads the row
  // and finds it disconnected.
  const markDisconnected = statement(
    'disconnect_browser',
    `UPDATE ${t('browsers')} SET connected = false, disconnect_reason = $2, disconnected_at = $3
      WHERE id = $1 AND connected
     RETURNING id, recipient`,
  );
  const browserExists = statement('browser_exists', `SELECT 1 FROM ${t('browsers')} WHERE id = $1`);
  const failPending = statement(
    'fail_pending',
    `WITH pending AS (
       SELECT id FROM ${t('attempts')} WHERE browser_id = ANY($1::text[]) AND NOT final ORDER BY id FOR NO KEY UPDATE
     )
     UPDATE ${t('attempts')} AS a SET status = 'failed', final = true, reason = $2, failed_at = $3
       FROM pending WHERE a.id = pending.id AND NOT a.final
     RETURNING a.id, a.browser_id, a.seq, a.notification_id`,
    { planEachRun: true },
  );
  // Best effort by design: a browser whose row a send holds this instant is skipped, not
  // waited for (it is touched again within a heartbeat), and no lock order can deadlock.
  const touch = statement(
    'touch_browsers',
    `WITH seen AS (
       SELECT id FROM ${t('browsers')} WHERE id = ANY($1::text[]) AND connected ORDER BY id FOR NO KEY UPDATE SKIP LOCKED
     )
     UPDATE ${t('browsers')} AS b SET last_seen_at = greatest(b.last_seen_at, $2)
       FROM seen WHERE b.id = seen.id`,
    { planEachRun: true },
  );
  // The instance's own row, then the browsers the store does not have as held by it; as the
  // touch above, a browser a send holds this instant is skipped (taken at the next renewal,
  // within a quarter of the stale timeout, while its last-seen time is still fresh).
  const hold = statement(
    'hold_browsers',
    `WITH instance AS (
       INSERT INTO ${t('instances')} AS i (id, seen_at) VALUES ($1, $3)
       ON CONFLICT (id) DO UPDATE SET seen_at = greatest(i.seen_at, excluded.seen_at)
     ), held AS (
       SELECT id FROM ${t('browsers')}
        WHERE id = ANY($2::text[]) AND connected AND held_by IS DISTINCT FROM $1
        ORDER BY id FOR NO KEY UPDATE SKIP LOCKED
     )
     UPDATE ${t('browsers')} AS b SET held_by = $1, last_seen_at = greatest(b.last_seen_at, $3)
       FROM held WHERE b.id = held.id`,
    { planEachRun: true },
  );
  // Not SKIP LOCKED: a browser left held by an instance without its stream would look fresh for
  // as long as the instance lives. Locked in id order, as sends lock them, so neither deadlocks.
  const release = statement(
    'release_browsers',
    `WITH released AS (
       SELECT id FROM ${t('browsers')} WHERE id = ANY($1::text[]) AND connected ORDER BY id FOR NO KEY UPDATE
     )
     UPDATE ${t('browsers')} AS b
        SET last_seen_at = greatest(b.last_seen_at, $3),
            held_by = CASE WHEN b.held_by = $2 THEN NULL ELSE b.held_by END
       FROM released WHERE b.id = released.id`,
    { planEachRun: true },
  );
  // An instance not seen since the stale timeout stopped without letting go of its browsers:
  // they are held by nobody now, last seen when it was. Its row's lock orders sweepers that
  // find it together; the second finds it gone.
  const letGoOfGone = statement(
    'let_go_of_gone_instances',
    `WITH gone AS (
       DELETE FROM ${t('instances')} WHERE seen_at < $1 RETURNING id, seen_at
     ), held AS (
       SELECT b.id, gone.seen_at FROM ${t('browsers')} AS b JOIN gone ON b.held_by = gone.id
        ORDER BY b.id FOR NO KEY UPDATE OF b
     )
     UPDATE ${t('browsers')} AS b SET held_by = NULL, last_seen_at = greatest(b.last_seen_at, held.seen_at)
       FROM held WHERE b.id = held.id`,
    { planEachRun: true },
  );
  // SKIP LOCKED: instances sweeping together each take other browsers, none waits for another.
  // The row lock re-checks the condition on the latest version: a browser touched meanwhile stays.
  const markStale = statement(
    'mark_stale',
    `WITH stale AS (
       SELECT id, recipient, last_seen_at FROM ${t('browsers')}
        WHERE connected AND held_by IS NULL AND last_seen_at < $1
          -- A browser with a push subscription is reached without a stream: stale only once it
          -- was not seen for the (longer) retention of push.
          AND (last_seen_at < $3 OR NOT EXISTS (
            SELECT 1 FROM ${t('push_subscriptions')} AS s WHERE s.browser_id = ${t('browsers')}.id))
        ORDER BY last_seen_at, id
        FOR NO KEY UPDATE SKIP LOCKED
     ), marked AS (
       UPDATE ${t('browsers')} AS b SET connected = false, disconnect_reason = 'browser_stale', disconnected_at = $2
         FROM stale WHERE b.id = stale.id
     )
     SELECT id, recipient FROM stale ORDER BY last_seen_at, id`,
    { planEachRun: true },
  );

  const deleteSubscriptions = statement(
    'delete_push_subscriptions',
    `DELETE FROM ${t('push_subscriptions')} WHERE browser_id = ANY($1::text[])`,
    { planEachRun: true },
  );

  async function disconnect(
    client: PoolClient,
    browserId: string,
    reason: DisconnectReason,
    now: number,
  ): Promise<DisconnectBrowserResult> {
    const [marked] = await run<{ recipient: string }>(client, markDisconnected, [browserId, reason, now]);
    if (!marked) {
      const exists = await run(client, browserExists, [browserId]);
      return { kind: exists.length > 0 ? 'already-disconnected' : 'not-found' };
    }
    const failed = await run<FailedRow>(client, failPending, [[browserId], reason, now]);
    failed.sort((a, b) => a.seq - b.seq);
    await run(client, deleteSubscriptions, [[browserId]]);
    const changes = failed.map(attemptEnded);
    changes.push({ kind: 'browser-disconnected', browserId, recipient: marked.recipient, at: now, reason });
    await recordEvents(client, changes, now);
    return { kind: 'disconnected', failedAttemptIds: failed.map((row) => row.id) };
  }

  return {
    async createConnectToken({ hash, projectId, recipient, now, expiresAt }) {
      await run(pool, insertToken, [hash, projectId, recipient, now, expiresAt]);
    },
    async findConnectToken(hash) {
      const [row] = await run<ConnectTokenRow>(pool, selectToken, [hash]);
      if (!row) return null;
      return {
        projectId: row.project_id,
        recipient: row.recipient,
        expiresAt: row.expires_at,
        project: joinedProject(row),
      };
    },
    async registerBrowser({ id, projectId, recipient, secretHash, now, userAgent = null, connectedBy = null }) {
      const values = [id, projectId, recipient, secretHash, now, userAgent, connectedBy];
      const [registered] = await run<BrowserRecord>(pool, insertBrowserUnhooked, values);
      if (registered) return registered;
      return transaction(pool, async (client) => {
        const browser = (await run<BrowserRecord>(client, insertBrowser, values))[0]!;
        await recordEvents(client, [{ kind: 'browser-connected', browserId: id, recipient, at: now }], now);
        return browser;
      });
    },
    async findBrowser(id) {
      const [row] = await run<BrowserRecord & JoinedProjectRow>(pool, selectBrowser, [id]);
      if (!row) return null;
      const browser: BrowserRecord = {
        id: row.id,
        projectId: row.projectId,
        recipient: row.recipient,
        secretHash: row.secretHash,
        connected: row.connected,
        disconnectReason: row.disconnectReason,
        createdAt: row.createdAt,
        lastSeenAt: row.lastSeenAt,
        disconnectedAt: row.disconnectedAt,
      };
      return { browser, project: joinedProject(row) };
    },
    async getBrowserView({ projectId, browserId }) {
      const [row] = await run<BrowserViewRow>(pool, selectBrowserView, [browserId, projectId]);
      return row ? browserViewOf(row) : null;
    },
    async listRecipientBrowsers({ projectId, recipient, limit }) {
      const rows = await run<BrowserViewRow & { recipientCreatedAt: number }>(pool, selectRecipientBrowsers, [
        projectId,
        recipient,
        limit,
      ]);
      const [first] = rows;
      if (!first) return null;
      // A recipient without browsers is one row of nulls.
      const browsers = rows.filter((row) => row.id !== null).map(browserViewOf);
      return { createdAt: first.recipientCreatedAt, browsers };
    },
    async disconnectBrowser({ browserId, reason, now }) {
      return transaction(pool, (client) => disconnect(client, browserId, reason, now));
    },
    async touchBrowsers({ browserIds, now }) {
      if (browserIds.length > 0) await run(pool, touch, [browserIds, now]);
    },
    async holdBrowsers({ instanceId, browserIds, now }) {
      await run(pool, hold, [instanceId, browserIds, now]);
    },
    async releaseBrowsers({ instanceId, browserIds, now }) {
      if (browserIds.length > 0) await run(pool, release, [browserIds, instanceId, now]);
    },
    async reapStaleBrowsers({ seenBefore, now, pushSeenBefore }) {
      const pushBefore = Math.min(pushSeenBefore ?? seenBefore, seenBefore);
      return transaction(pool, async (client) => {
        await run(client, letGoOfGone, [seenBefore]);
        const staleRows = await run<{ id: string; recipient: string }>(client, markStale, [
          seenBefore,
          now,
          pushBefore,
        ]);
        const stale = staleRows.map((row) => row.id);
        if (stale.length === 0) return [];
        await run(client, deleteSubscriptions, [stale]);
        const failed = await run<FailedRow>(client, failPending, [stale, 'browser_stale', now]);
        // Each browser with its failed attempts in its own order, the browsers oldest seen first.
        const reaped = new Map<string, ReapedBrowser>(stale.map((id) => [id, { browserId: id, failedAttemptIds: [] }]));
        const failedOf = new Map<string, FailedRow[]>(stale.map((id) => [id, []]));
        for (const row of failed.sort((a, b) => a.seq - b.seq)) {
          reaped.get(row.browser_id)!.failedAttemptIds.push(row.id);
          failedOf.get(row.browser_id)!.push(row);
        }
        const changes: WebhookChange[] = [];
        for (const { id, recipient } of staleRows) {
          changes.push(...failedOf.get(id)!.map(attemptEnded));
          changes.push({ kind: 'browser-disconnected', browserId: id, recipient, at: now, reason: 'browser_stale' });
        }
        await recordEvents(client, changes, now);
        return [...reaped.values()];
      });
    },
  };
}

/** An attempt a disconnection failed. */
interface FailedRow {
  id: string;
  browser_id: string;
  seq: number;
  notification_id: string;
}

function attemptEnded(row: FailedRow): WebhookChange {
  return { kind: 'attempt', attemptId: row.id, notificationId: row.notification_id, ended: true };
}
