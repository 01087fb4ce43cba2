import type Database from 'better-sqlite3';
import { moveRequestLogOut } from './request-log-file.js';
import { applySchemaSteps, type SchemaStep } from './schema-steps.js';

/**
 * The schema, one step per version: step `i` moves a database from `user_version` i to i + 1.
 * Steps are append-only; a released step is never edited, a change is a new step. (Steps 6 to 9
 * lost the dashboard's tables to the dashboard's own migrations, in `@tidings/dashboard/sqlite`,
 * whose step makes what they made, on a database that has them or not.)
 *
 * Conventions: times are integer epoch milliseconds, booleans 0/1, `data` JSON text.
 */
export const migrations: readonly SchemaStep[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    verified INTEGER NOT NULL CHECK (verified IN (0, 1)),
    created_at INTEGER NOT NULL
  );

  CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    suspended INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
    created_at INTEGER NOT NULL,
    suspended_at INTEGER
  );
  CREATE INDEX projects_by_account ON projects (account_id, created_at);

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    hash TEXT NOT NULL,
    prefix TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
    name TEXT,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at INTEGER
  );
  CREATE UNIQUE INDEX api_keys_by_hash ON api_keys (hash);
  CREATE INDEX api_keys_by_project ON api_keys (project_id, revoked_at);

  CREATE TABLE recipients (
    project_id TEXT NOT NULL REFERENCES projects (id),
    recipient TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, recipient)
  ) WITHOUT ROWID;

  CREATE TABLE connect_tokens (
    hash TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    recipient TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    FOREIGN KEY (project_id, recipient) REFERENCES recipients (project_id, recipient)
  );
  CREATE INDEX connect_tokens_by_expiry ON connect_tokens (expires_at);

  CREATE TABLE browsers (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    recipient TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    connected INTEGER NOT NULL CHECK (connected IN (0, 1)),
    disconnect_reason TEXT CHECK (disconnect_reason IN ('browser_disconnected', 'browser_stale')),
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    disconnected_at INTEGER,
    -- The seq of the browser's latest attempt: attempts number 1, 2, 3… per browser.
    last_seq INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (project_id, recipient) REFERENCES recipients (project_id, recipient)
  );
  CREATE INDEX browsers_by_recipient ON browsers (project_id, recipient, connected);
  CREATE INDEX browsers_by_last_seen ON browsers (connected, last_seen_at);

  CREATE TABLE notifications (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
    recipient TEXT NOT NULL,
    title TEXT NOT NULL,
    body TEXT,
    url TEXT,
    icon TEXT,
    tag TEXT,
    data TEXT,
    ttl INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX notifications_by_project ON notifications (project_id, id);

  CREATE TABLE attempts (
    id TEXT PRIMARY KEY,
    notification_id TEXT NOT NULL REFERENCES notifications (id),
    browser_id TEXT NOT NULL REFERENCES browsers (id),
    seq INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('accepted', 'sent', 'delivered', 'expired', 'failed')),
    final INTEGER NOT NULL CHECK (final IN (0, 1)),
    accepted_at INTEGER NOT NULL,
    sent_at INTEGER,
    delivered_at INTEGER,
    failed_at INTEGER,
    expired_at INTEGER,
    reason TEXT CHECK (reason IN ('browser_disconnected', 'browser_stale', 'ttl_expired')),
    displayed_at INTEGER,
    clicked_at INTEGER,
    dismissed_at INTEGER
  );
  CREATE UNIQUE INDEX attempts_by_browser_seq ON attempts (browser_id, seq);
  CREATE INDEX attempts_by_notification ON attempts (notification_id);
  -- The hot paths read only attempts that are not final, a small set however long a browser
  -- lives or old the store: a browser's pending attempts in stream order (resume, poll,
  -- disconnect), and the pending attempts the expiry sweep checks.
  CREATE INDEX attempts_pending_by_browser ON attempts (browser_id, seq) WHERE final = 0;
  CREATE INDEX attempts_pending ON attempts (notification_id) WHERE final = 0;

  CREATE TABLE idempotency_keys (
    project_id TEXT NOT NULL REFERENCES projects (id),
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('running', 'completed')),
    response_status INTEGER,
    response_body TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    lock_expires_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);

  CREATE TABLE usage_days (
    project_id TEXT NOT NULL REFERENCES projects (id),
    day TEXT NOT NULL,
    notifications INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    PRIMARY KEY (project_id, day)
  ) WITHOUT ROWID;
  `,
  // 2: each attempt carries its notification's expiry, indexed over pending attempts only, so
  // that the sweep every second reads what has expired rather than everything still pending.
  `
  ALTER TABLE attempts ADD COLUMN expires_at INTEGER;
  UPDATE attempts SET expires_at = (SELECT n.expires_at FROM notifications AS n WHERE n.id = attempts.notification_id);
  CREATE INDEX attempts_pending_by_expiry ON attempts (expires_at) WHERE final = 0;
  DROP INDEX attempts_pending;
  `,
  // 3: a counter that every change able to alter a key lookup's answer raises, by trigger, in the
  // same transaction as the change, whichever connection or tool makes it. A process may keep
  // the keys it has looked up while the counter stands still; one read of it per request is
  // cheaper than the lookup, and the lookup stays exact (docs/api.md: no cache may keep a revoked
  // key alive). Also drops an index no query needs.
  `
  CREATE TABLE key_lookup_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
  );
  INSERT INTO key_lookup_generation (id, value) VALUES (1, 0);
  CREATE TRIGGER api_keys_changed AFTER UPDATE OF id, project_id, hash, mode, revoked_at ON api_keys
  BEGIN UPDATE key_lookup_generation SET value = value + 1; END;
  CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
  BEGIN UPDATE key_lookup_generation SET value = value + 1; END;
  CREATE TRIGGER projects_changed AFTER UPDATE ON projects
  BEGIN UPDATE key_lookup_generation SET value = value + 1; END;
  CREATE TRIGGER projects_deleted AFTER DELETE ON projects
  BEGIN UPDATE key_lookup_generation SET value = value + 1; END;
  -- Reads of a notification go by its id (the primary key) and then check the project; this
  -- index only cost every send one more b-tree insert.
  DROP INDEX notifications_by_project;
  `,
  // 4: attempts without foreign keys. Every attempt is inserted by a send in the transaction that
  // inserts its notification, for a browser it read as connected in that transaction, and no
  // notification or browser is ever deleted: the two parent lookups SQLite made for each attempt
  // could not fail, and cost a measurable share of a send's server time
  // (bench/NOTES.md#figures-behind-the-design). The table is copied in rowid
  // order, which is the order a notification's attempts are read back in.
  `
  CREATE TABLE attempts_next (
    id TEXT PRIMARY KEY,
    notification_id TEXT NOT NULL,
    browser_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('accepted', 'sent', 'delivered', 'expired', 'failed')),
    final INTEGER NOT NULL CHECK (final IN (0, 1)),
    accepted_at INTEGER NOT NULL,
    sent_at INTEGER,
    delivered_at INTEGER,
    failed_at INTEGER,
    expired_at INTEGER,
    reason TEXT CHECK (reason IN ('browser_disconnected', 'browser_stale', 'ttl_expired')),
    displayed_at INTEGER,
    clicked_at INTEGER,
    dismissed_at INTEGER,
    expires_at INTEGER
  );
  INSERT INTO attempts_next
    (id, notification_id, browser_id, seq, status, final, accepted_at, sent_at, delivered_at, failed_at,
     expired_at, reason, displayed_at, clicked_at, dismissed_at, expires_at)
  SELECT id, notification_id, browser_id, seq, status, final, accepted_at, sent_at, delivered_at, failed_at,
         expired_at, reason, displayed_at, clicked_at, dismissed_at, expires_at
    FROM attempts ORDER BY rowid;
  DROP TABLE attempts;
  ALTER TABLE attempts_next RENAME TO attempts;
  CREATE UNIQUE INDEX attempts_by_browser_seq ON attempts (browser_id, seq);
  CREATE INDEX attempts_by_notification ON attempts (notification_id);
  CREATE INDEX attempts_pending_by_browser ON attempts (browser_id, seq) WHERE final = 0;
  CREATE INDEX attempts_pending_by_expiry ON attempts (expires_at) WHERE final = 0;
  `,
  // 5: idempotency records only for completed sends, written in the send's own transaction. A
  // claim written before the send outlived a process that crashed in between, and held the key
  // for a client's retry until its lock ran out; the claims left by earlier versions are dropped.
  `
  CREATE TABLE idempotency_keys_next (
    project_id TEXT NOT NULL REFERENCES projects (id),
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    response_status INTEGER NOT NULL,
    response_body TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, key)
  ) WITHOUT ROWID;
  INSERT INTO idempotency_keys_next
    (project_id, key, fingerprint, response_status, response_body, created_at, expires_at)
  SELECT project_id, key, fingerprint, response_status, response_body, created_at, expires_at
    FROM idempotency_keys WHERE state = 'completed';
  DROP TABLE idempotency_keys;
  ALTER TABLE idempotency_keys_next RENAME TO idempotency_keys;
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
  `,
  // 6: the dashboard's tables, now made by the dashboard store's own migrations
  // (in @tidings/dashboard) and only when a dashboard store is opened. A database that applied
  // this step (or 8 and 9) before has them, and keeps them as they are.
  '',
  // 7: operators' actions. A suspension keeps its reason and who made it. (What this step also
  // changed in the dashboard's tables is now the dashboard store's migrations.)
  `
  ALTER TABLE projects ADD COLUMN suspended_reason TEXT;
  ALTER TABLE projects ADD COLUMN suspended_by TEXT;
  `,
  // 8 and 9: the dashboard's second factor and self-service, now the dashboard store's migrations.
  '',
  '',
  // 10: the job queue (docs/jobs.md). `seq` is the order of enqueueing, which is the order of
  // commits (one writer at a time): the claim takes, of each key, the unfinished job with the
  // lowest seq, found through the partial index of unfinished jobs by key. No foreign key: jobs
  // are written by the sends that checked their project, and purged on their own.
  `
  CREATE TABLE jobs (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    project_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    run_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    last_error TEXT,
    lease_owner TEXT,
    lease_until INTEGER,
    keep_until INTEGER
  );
  CREATE INDEX jobs_unfinished ON jobs (seq) WHERE status IN ('pending', 'running');
  CREATE INDEX jobs_unfinished_by_key ON jobs (key, seq) WHERE status IN ('pending', 'running');
  CREATE INDEX jobs_by_project ON jobs (project_id, seq);
  CREATE INDEX jobs_finished ON jobs (keep_until) WHERE status IN ('done', 'failed');
  `,
  // 11: where a send came from, for the dashboard's page of one send. Rows from before keep null
  // ("not recorded").
  `
  ALTER TABLE notifications ADD COLUMN api_key_id TEXT;
  ALTER TABLE notifications ADD COLUMN request_id TEXT;
  ALTER TABLE notifications ADD COLUMN idempotency_key TEXT;
  `,
  // 12: the path an attempt went out by (its browser's stream or its poll), recorded with
  // sent_at; attempts sent before keep null ("not recorded").
  `
  ALTER TABLE attempts ADD COLUMN sent_via TEXT CHECK (sent_via IN ('stream', 'poll'));
  `,
  // 13: a project's webhook endpoints, deleted with their project.
  `
  CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    description TEXT,
    events TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
    disabled_reason TEXT,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expires_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_endpoints_by_project ON webhook_endpoints (project_id, created_at, id);
  `,
  // 14: Web Push. The deployment's one VAPID key pair; a push subscription per browser, deleted
  // with its browser; and on attempts, the time a push service accepted a message of it, 'push'
  // as a path and 'push_rejected' as a reason. SQLite cannot change a CHECK constraint in place,
  // so attempts are copied into a new table (in rowid order, as step 4 did) with the same indexes.
  `
  CREATE TABLE vapid_keys (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    public_key TEXT NOT NULL,
    private_key TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE push_subscriptions (
    browser_id TEXT PRIMARY KEY REFERENCES browsers (id) ON DELETE CASCADE,
    endpoint TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    expires_at INTEGER
  );
  CREATE TABLE attempts_next (
    id TEXT PRIMARY KEY,
    notification_id TEXT NOT NULL,
    browser_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('accepted', 'sent', 'delivered', 'expired', 'failed')),
    final INTEGER NOT NULL CHECK (final IN (0, 1)),
    accepted_at INTEGER NOT NULL,
    sent_at INTEGER,
    delivered_at INTEGER,
    failed_at INTEGER,
    expired_at INTEGER,
    reason TEXT CHECK (reason IN ('browser_disconnected', 'browser_stale', 'ttl_expired', 'push_rejected')),
    displayed_at INTEGER,
    clicked_at INTEGER,
    dismissed_at INTEGER,
    expires_at INTEGER,
    sent_via TEXT CHECK (sent_via IN ('stream', 'poll', 'push')),
    push_accepted_at INTEGER
  );
  INSERT INTO attempts_next
    (id, notification_id, browser_id, seq, status, final, accepted_at, sent_at, delivered_at, failed_at,
     expired_at, reason, displayed_at, clicked_at, dismissed_at, expires_at, sent_via)
  SELECT id, notification_id, browser_id, seq, status, final, accepted_at, sent_at, delivered_at, failed_at,
         expired_at, reason, displayed_at, clicked_at, dismissed_at, expires_at, sent_via
    FROM attempts ORDER BY rowid;
  DROP TABLE attempts;
  ALTER TABLE attempts_next RENAME TO attempts;
  CREATE UNIQUE INDEX attempts_by_browser_seq ON attempts (browser_id, seq);
  CREATE INDEX attempts_by_notification ON attempts (notification_id);
  CREATE INDEX attempts_pending_by_browser ON attempts (browser_id, seq) WHERE final = 0;
  CREATE INDEX attempts_pending_by_expiry ON attempts (expires_at) WHERE final = 0;
  `,
  // 15: webhook delivery (docs/webhooks.md). Since when an endpoint fails; one message per
  // endpoint and event, deleted with its endpoint (and so with its project), `seq` the order of
  // their creation (ids made in one millisecond do not sort in it), and each request of a message. Messages are purged 30 days after their creation.
  `
  ALTER TABLE webhook_endpoints ADD COLUMN failing_since INTEGER;
  CREATE TABLE webhook_messages (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    order_key TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    next_attempt_at INTEGER,
    last_attempt_at INTEGER,
    delivered_at INTEGER
  );
  CREATE INDEX webhook_messages_by_endpoint ON webhook_messages (endpoint_id, seq);
  CREATE INDEX webhook_messages_by_project ON webhook_messages (project_id);
  CREATE INDEX webhook_messages_by_creation ON webhook_messages (created_at);
  CREATE TABLE webhook_message_attempts (
    message_id TEXT NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    attempted_at INTEGER NOT NULL,
    status_code INTEGER,
    latency_ms INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'timeout', 'network', 'refused')),
    response_excerpt TEXT,
    error TEXT,
    PRIMARY KEY (message_id, n)
  );
  `,
  // 16: attempts lose their unique index on (browser_id, seq). No read used it: every read of a
  // browser's attempts asks for the pending ones, through attempts_pending_by_browser. Its one
  // other role, refusing a repeated seq, holds by construction: a send numbers its attempts from
  // browsers.last_seq inside its IMMEDIATE transaction, under the write lock, and writes the new
  // last_seq in the same commit. Keeping it cost every attempt an insert at a random place of a
  // b-tree ordered by browser, and its dirty pages in every group commit.
  `
  DROP INDEX attempts_by_browser_seq;
  `,
  // 17: browsers held by an instance (docs/deploy.md, "Browsers held by instances"). An instance
  // records that it holds the browsers of its open streams, and then keeps all of them fresh
  // with its own row, instead of writing every browser's last-seen time over and over. The
  // stale sweep reads only browsers held by nobody; those of an instance not seen for the stale
  // timeout are let go of first.
  `
  CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    seen_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  ALTER TABLE browsers ADD COLUMN held_by TEXT;
  DROP INDEX browsers_by_last_seen;
  CREATE INDEX browsers_unheld_by_last_seen ON browsers (last_seen_at) WHERE connected = 1 AND held_by IS NULL;
  CREATE INDEX browsers_by_holder ON browsers (held_by) WHERE held_by IS NOT NULL;
  `,
  // 18: the inbox (docs/inbox.md). Every live notification is an item of its recipient's inbox,
  // made by a trigger in the insert's own transaction, whichever write inserts it (a send, a
  // send in an application's transaction). The counts of each recipient are kept by triggers on
  // the items, in the transaction of every change, so they are exact and one row to read; their
  // version rises with every change, so that a browser told of two changes keeps the later. The
  // live notifications of the last 90 days become items, unread.
  `
  CREATE TABLE inbox_items (
    notification_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    recipient TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    seen_at INTEGER,
    read_at INTEGER,
    archived_at INTEGER,
    reminded_at INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX inbox_items_by_recipient ON inbox_items (project_id, recipient, notification_id);
  CREATE INDEX inbox_items_by_created_at ON inbox_items (created_at);
  CREATE TABLE inbox_counts (
    project_id TEXT NOT NULL,
    recipient TEXT NOT NULL,
    total INTEGER NOT NULL,
    unread INTEGER NOT NULL,
    unseen INTEGER NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (project_id, recipient)
  ) WITHOUT ROWID;
  CREATE TABLE inbox_retention (
    project_id TEXT PRIMARY KEY,
    days INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TRIGGER inbox_item_of_live_notification AFTER INSERT ON notifications WHEN NEW.mode = 'live'
  BEGIN
    INSERT INTO inbox_items (notification_id, project_id, recipient, created_at)
    VALUES (NEW.id, NEW.project_id, NEW.recipient, NEW.created_at);
  END;
  CREATE TRIGGER inbox_counts_of_new_item AFTER INSERT ON inbox_items
  BEGIN
    INSERT INTO inbox_counts (project_id, recipient, total, unread, unseen, version)
    VALUES (NEW.project_id, NEW.recipient, NEW.archived_at IS NULL,
            NEW.read_at IS NULL AND NEW.archived_at IS NULL, NEW.seen_at IS NULL AND NEW.archived_at IS NULL, 1)
    ON CONFLICT (project_id, recipient) DO UPDATE SET
      total = total + excluded.total, unread = unread + excluded.unread, unseen = unseen + excluded.unseen,
      version = version + 1;
  END;
  CREATE TRIGGER inbox_counts_of_changed_item AFTER UPDATE OF seen_at, read_at, archived_at ON inbox_items
  BEGIN
    UPDATE inbox_counts SET
      total = total + (NEW.archived_at IS NULL) - (OLD.archived_at IS NULL),
      unread = unread + (NEW.read_at IS NULL AND NEW.archived_at IS NULL)
                      - (OLD.read_at IS NULL AND OLD.archived_at IS NULL),
      unseen = unseen + (NEW.seen_at IS NULL AND NEW.archived_at IS NULL)
                      - (OLD.seen_at IS NULL AND OLD.archived_at IS NULL),
      version = version + 1
    WHERE project_id = NEW.project_id AND recipient = NEW.recipient;
  END;
  CREATE TRIGGER inbox_counts_of_deleted_item AFTER DELETE ON inbox_items
  BEGIN
    UPDATE inbox_counts SET
      total = total - (OLD.archived_at IS NULL),
      unread = unread - (OLD.read_at IS NULL AND OLD.archived_at IS NULL),
      unseen = unseen - (OLD.seen_at IS NULL AND OLD.archived_at IS NULL),
      version = version + 1
    WHERE project_id = OLD.project_id AND recipient = OLD.recipient;
  END;
  INSERT INTO inbox_items (notification_id, project_id, recipient, created_at)
  SELECT id, project_id, recipient, created_at FROM notifications
   WHERE mode = 'live' AND created_at >= (unixepoch() - 90 * 86400) * 1000
   ORDER BY id;
  `,
  // 19: what the dashboard's page of a browser shows: the User-Agent of the request that
  // registered it, and whether that was the event stream or the poll. Browsers from before keep
  // null ("not recorded").
  `
  ALTER TABLE browsers ADD COLUMN user_agent TEXT;
  ALTER TABLE browsers ADD COLUMN connected_by TEXT CHECK (connected_by IN ('stream', 'poll'));
  `,
  // 20: the request log (docs/api.md#request-log): every API request of a project, written in
  // batches after its answer. A rowid table, since its rows carry bodies of up to 16 KiB each.
  // Read newest first by request id (ids sort by time), within a project, and searched by
  // Idempotency-Key, recipient or notification; each notification a request concerns is a row of
  // its own, so that search is an index lookup. Deleted oldest first by creation time.
  `
  CREATE TABLE request_log (
    request_id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    status INTEGER NOT NULL,
    code TEXT,
    key_prefix TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
    idempotency_key TEXT,
    recipient TEXT,
    notification_ids TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    request_body TEXT,
    request_body_truncated INTEGER NOT NULL CHECK (request_body_truncated IN (0, 1)),
    response_body TEXT,
    response_body_truncated INTEGER NOT NULL CHECK (response_body_truncated IN (0, 1))
  );
  CREATE INDEX request_log_by_project ON request_log (project_id, request_id);
  CREATE INDEX request_log_by_idempotency_key ON request_log (project_id, idempotency_key, request_id)
    WHERE idempotency_key IS NOT NULL;
  CREATE INDEX request_log_by_recipient ON request_log (project_id, recipient, request_id) WHERE recipient IS NOT NULL;
  CREATE INDEX request_log_by_created_at ON request_log (created_at);
  CREATE TABLE request_log_notifications (
    request_id TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    PRIMARY KEY (request_id, notification_id)
  ) WITHOUT ROWID;
  CREATE INDEX request_log_notifications_by_notification ON request_log_notifications (project_id, notification_id, request_id);
  `,
  // 21: the request log again, for what each entry costs to write: four B-trees per entry
  // instead of eight. The rowid is the order of writing, which the purge follows, so no index by
  // creation time; the request id is unique within its project's index, which also serves the
  // listing; the first notification a request concerns is a column of its own row with an index,
  // and only the further ones of a request that names several (a mark of inbox items) are rows of
  // `request_log_notifications`. The entries are copied over as they are.
  `
  CREATE TABLE request_log_new (
    seq INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    status INTEGER NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    code TEXT,
    key_prefix TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
    idempotency_key TEXT,
    recipient TEXT,
    notification_id TEXT,
    more_notification_ids TEXT,
    duration_ms REAL NOT NULL,
    request_body TEXT,
    request_body_truncated INTEGER NOT NULL CHECK (request_body_truncated IN (0, 1)),
    response_body TEXT,
    response_body_truncated INTEGER NOT NULL CHECK (response_body_truncated IN (0, 1))
  );
  INSERT INTO request_log_new (request_id, project_id, created_at, status, method, path, code, key_prefix, mode,
    idempotency_key, recipient, notification_id, more_notification_ids, duration_ms,
    request_body, request_body_truncated, response_body, response_body_truncated)
  SELECT request_id, project_id, created_at, status, method, path, code, key_prefix, mode,
    idempotency_key, recipient, notification_ids ->> '$[0]',
    CASE WHEN json_array_length(notification_ids) > 1 THEN json_remove(notification_ids, '$[0]') END,
    duration_ms, request_body, request_body_truncated, response_body, response_body_truncated
  FROM request_log ORDER BY created_at, request_id;
  DELETE FROM request_log_notifications
   WHERE EXISTS (SELECT 1 FROM request_log l
                  WHERE l.request_id = request_log_notifications.request_id
                    AND l.notification_ids ->> '$[0]' = request_log_notifications.notification_id);
  DROP TABLE request_log;
  ALTER TABLE request_log_new RENAME TO request_log;
  CREATE UNIQUE INDEX request_log_by_project ON request_log (project_id, request_id);
  CREATE INDEX request_log_by_notification ON request_log (project_id, notification_id, request_id)
    WHERE notification_id IS NOT NULL;
  CREATE INDEX request_log_by_idempotency_key ON request_log (project_id, idempotency_key, request_id)
    WHERE idempotency_key IS NOT NULL;
  CREATE INDEX request_log_by_recipient ON request_log (project_id, recipient, request_id) WHERE recipient IS NOT NULL;
  `,
  // 22: the request log leaves the database for a file of its own beside it, written by a thread
  // of its own (request-log-file.ts), so that its pages no longer go through the sends' WAL and
  // its writes no longer take the sends' lock. Its entries are copied there first (in the order
  // they were written), then its tables are dropped here. An in-memory database makes the
  // request log's tables itself, after these steps.
  {
    prepare: moveRequestLogOut,
    sql: `
  DROP TABLE request_log_notifications;
  DROP TABLE request_log;
  `,
  },
];

/** Brings a database up to the latest schema (or to the last of `steps`). */
export function migrate(db: Database.Database, steps: readonly SchemaStep[] = migrations): number {
  return applySchemaSteps(db, steps, 'The database schema');
}
