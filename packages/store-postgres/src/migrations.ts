import type { Pool } from 'pg';
import { quoteIdentifier, runText, transaction } from './db.js';

/**
 * The schema, one step per version: step `i` moves a schema from version i to i + 1. Steps are
 * append-only; a released step is never edited, a change is a new step. (Steps 2 to 5 lost the
 * dashboard's tables to the dashboard's own migrations, in `@tidings/dashboard/postgres`, whose
 * step makes what they made, on a schema that has them or not.) `{schema}` stands for
 * the quoted schema name.
 *
 * Conventions: times are `bigint` epoch milliseconds (the store never reads a clock of its own),
 * identifiers `text COLLATE "C"` so that time-sortable ids sort by their bytes, `data` is `json`
 * (kept as sent). The tables a send writes (notifications, attempts, usage) declare no foreign
 * keys: each foreign key check takes a share lock on the parent row, and every send of a project
 * would then share-lock the project's row; their parents are checked by the send itself and
 * never deleted.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE {schema}.accounts (
    id text COLLATE "C" PRIMARY KEY,
    email text NOT NULL,
    verified boolean NOT NULL,
    created_at bigint NOT NULL
  );

  CREATE TABLE {schema}.projects (
    id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES {schema}.accounts (id),
    name text NOT NULL,
    suspended boolean NOT NULL DEFAULT false,
    created_at bigint NOT NULL,
    suspended_at bigint
  );
  CREATE INDEX projects_by_account ON {schema}.projects (account_id, created_at, id);

  CREATE TABLE {schema}.api_keys (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES {schema}.projects (id),
    hash text COLLATE "C" NOT NULL UNIQUE,
    prefix text NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    name text,
    created_at bigint NOT NULL,
    last_used_at bigint,
    revoked_at bigint
  );
  CREATE INDEX api_keys_by_project ON {schema}.api_keys (project_id, created_at, id);

  CREATE TABLE {schema}.recipients (
    project_id text COLLATE "C" NOT NULL REFERENCES {schema}.projects (id),
    recipient text COLLATE "C" NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (project_id, recipient)
  );

  CREATE TABLE {schema}.connect_tokens (
    hash text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL,
    recipient text COLLATE "C" NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    FOREIGN KEY (project_id, recipient) REFERENCES {schema}.recipients (project_id, recipient)
  );
  CREATE INDEX connect_tokens_by_expiry ON {schema}.connect_tokens (expires_at);

  CREATE TABLE {schema}.browsers (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL,
    recipient text COLLATE "C" NOT NULL,
    secret_hash text NOT NULL,
    connected boolean NOT NULL,
    disconnect_reason text CHECK (disconnect_reason IN ('browser_disconnected', 'browser_stale')),
    created_at bigint NOT NULL,
    last_seen_at bigint NOT NULL,
    disconnected_at bigint,
    -- The seq of the browser's latest attempt: attempts number 1, 2, 3… per browser. A send
    -- raises it under the row's lock, so the numbers of one browser have no gap and commit in
    -- order (a database sequence would commit out of order).
    last_seq bigint NOT NULL DEFAULT 0,
    FOREIGN KEY (project_id, recipient) REFERENCES {schema}.recipients (project_id, recipient)
  );
  CREATE INDEX browsers_connected_by_recipient ON {schema}.browsers (project_id, recipient, id) WHERE connected;
  CREATE INDEX browsers_connected_by_last_seen ON {schema}.browsers (last_seen_at, id) WHERE connected;

  CREATE TABLE {schema}.notifications (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    recipient text NOT NULL,
    title text NOT NULL,
    body text,
    url text,
    icon text,
    tag text,
    data json,
    ttl integer NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
  );

  CREATE TABLE {schema}.attempts (
    id text COLLATE "C" PRIMARY KEY,
    notification_id text COLLATE "C" NOT NULL,
    -- The attempt's place among its notification's attempts, the order they are read back in.
    position smallint NOT NULL,
    browser_id text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    status text NOT NULL CHECK (status IN ('accepted', 'sent', 'delivered', 'expired', 'failed')),
    final boolean NOT NULL,
    accepted_at bigint NOT NULL,
    sent_at bigint,
    delivered_at bigint,
    failed_at bigint,
    expired_at bigint,
    reason text CHECK (reason IN ('browser_disconnected', 'browser_stale', 'ttl_expired')),
    displayed_at bigint,
    clicked_at bigint,
    dismissed_at bigint,
    -- The notification's expiry, copied so that the sweep reads pending attempts alone.
    expires_at bigint NOT NULL,
    UNIQUE (browser_id, seq),
    UNIQUE (notification_id, position)
  );
  -- The hot paths read only attempts that are not final, a small set however old the store.
  CREATE INDEX attempts_pending_by_browser ON {schema}.attempts (browser_id, seq) WHERE NOT final;
  CREATE INDEX attempts_pending_by_expiry ON {schema}.attempts (expires_at) WHERE NOT final;

  -- A record exists only once its send committed: the claim is the send's own transaction.
  CREATE TABLE {schema}.idempotency_keys (
    project_id text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    fingerprint text NOT NULL,
    response_status integer NOT NULL,
    response_body text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (project_id, key)
  );
  CREATE INDEX idempotency_keys_by_expiry ON {schema}.idempotency_keys (expires_at);

  -- Live usage, counted in shards: a send adds to the shard of its connection, so the sends of
  -- one project on several connections do not queue on one row's lock until each commits.
  -- Reads add the shards up.
  CREATE TABLE {schema}.usage_days (
    project_id text COLLATE "C" NOT NULL,
    day text COLLATE "C" NOT NULL,
    shard smallint NOT NULL,
    notifications bigint NOT NULL,
    attempts bigint NOT NULL,
    PRIMARY KEY (project_id, day, shard)
  );
  `,
  // 2: the dashboard's tables, now made by the dashboard store's own migrations
  // (in @tidings/dashboard) and only when a dashboard store is opened. A schema that applied
  // this step before has them, and keeps them as they are.
  `SELECT 1`,
  // 3: operators' actions. A suspension keeps its reason and who made it. (What this step also
  // changed in the dashboard's tables is now the dashboard store's migrations.)
  `
  ALTER TABLE {schema}.projects ADD COLUMN suspended_reason text, ADD COLUMN suspended_by text;
  `,
  // 4 and 5: the dashboard's second factor and self-service, now the dashboard store's migrations.
  `SELECT 1`,
  `SELECT 1`,
  // 6: the job queue (docs/jobs.md). \`seq\` orders the jobs of a key: an enqueue takes a
  // transaction-scoped advisory lock of each of its keys before it draws the numbers, so the
  // jobs of one key commit in the order of their numbers (a plain identity column commits out of
  // order). The claim walks the partial index of unfinished jobs and checks, through the one by
  // key, that no older unfinished job of the key exists. No foreign key, as for the send's tables.
  `
  CREATE TABLE {schema}.jobs (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    kind text NOT NULL,
    key text COLLATE "C" NOT NULL,
    project_id text COLLATE "C" NOT NULL,
    payload json NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    run_at bigint NOT NULL,
    created_at bigint NOT NULL,
    finished_at bigint,
    last_error text,
    lease_owner text,
    lease_until bigint,
    keep_until bigint
  );
  CREATE INDEX jobs_unfinished ON {schema}.jobs (seq) WHERE status IN ('pending', 'running');
  CREATE INDEX jobs_unfinished_by_key ON {schema}.jobs (key, seq) WHERE status IN ('pending', 'running');
  CREATE INDEX jobs_by_project ON {schema}.jobs (project_id, seq);
  CREATE INDEX jobs_finished ON {schema}.jobs (keep_until) WHERE status IN ('done', 'failed');
  `,
  // 7: where a send came from, for the dashboard's page of one send: nullable columns, so adding
  // them rewrites no row, and rows from before keep null ("not recorded").
  `
  ALTER TABLE {schema}.notifications
    ADD COLUMN api_key_id text,
    ADD COLUMN request_id text,
    ADD COLUMN idempotency_key text;
  `,
  // 8: the path an attempt went out by (its browser's stream or its poll), recorded with
  // sent_at; a nullable column, and attempts sent before keep null ("not recorded").
  `
  ALTER TABLE {schema}.attempts ADD COLUMN sent_via text CHECK (sent_via IN ('stream', 'poll'));
  `,
  // 9: a project's webhook endpoints, deleted with their project.
  `
  CREATE TABLE {schema}.webhook_endpoints (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES {schema}.projects (id) ON DELETE CASCADE,
    url text NOT NULL,
    description text,
    events text[] NOT NULL,
    status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
    disabled_reason text,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_expires_at bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  );
  CREATE INDEX webhook_endpoints_by_project ON {schema}.webhook_endpoints (project_id, created_at, id);
  `,
  // 10: Web Push. The deployment's one VAPID key pair; a push subscription per browser, deleted
  // with its browser; and on attempts, the time a push service accepted a message of it (a
  // nullable column: no row is rewritten), 'push' as a path and 'push_rejected' as a reason.
  `
  CREATE TABLE {schema}.vapid_keys (
    id integer PRIMARY KEY CHECK (id = 1),
    public_key text NOT NULL,
    private_key text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE TABLE {schema}.push_subscriptions (
    browser_id text COLLATE "C" PRIMARY KEY REFERENCES {schema}.browsers (id) ON DELETE CASCADE,
    endpoint text NOT NULL,
    p256dh text NOT NULL,
    auth text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    expires_at bigint
  );
  ALTER TABLE {schema}.attempts
    ADD COLUMN push_accepted_at bigint,
    DROP CONSTRAINT IF EXISTS attempts_sent_via_check,
    ADD CONSTRAINT attempts_sent_via_check CHECK (sent_via IN ('stream', 'poll', 'push')),
    DROP CONSTRAINT IF EXISTS attempts_reason_check,
    ADD CONSTRAINT attempts_reason_check
      CHECK (reason IN ('browser_disconnected', 'browser_stale', 'ttl_expired', 'push_rejected'));
  `,
  // 11: webhook delivery (docs/webhooks.md). Since when an endpoint fails (a nullable column: no
  // row is rewritten); one message per endpoint and event, deleted with its endpoint (and so
  // with its project), its body kept as the text sent, `seq` the order of creation (ids made in
  // one millisecond do not sort in it); and each request of a message. Messages
  // are purged 30 days after their creation.
  `
  ALTER TABLE {schema}.webhook_endpoints ADD COLUMN failing_since bigint;
  CREATE TABLE {schema}.webhook_messages (
    seq bigserial NOT NULL,
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES {schema}.projects (id) ON DELETE CASCADE,
    endpoint_id text COLLATE "C" NOT NULL REFERENCES {schema}.webhook_endpoints (id) ON DELETE CASCADE,
    event_type text NOT NULL,
    payload text NOT NULL,
    order_key text COLLATE "C" NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL,
    created_at bigint NOT NULL,
    next_attempt_at bigint,
    last_attempt_at bigint,
    delivered_at bigint
  );
  CREATE INDEX webhook_messages_by_endpoint ON {schema}.webhook_messages (endpoint_id, seq);
  CREATE INDEX webhook_messages_by_project ON {schema}.webhook_messages (project_id);
  CREATE INDEX webhook_messages_by_creation ON {schema}.webhook_messages (created_at);
  CREATE TABLE {schema}.webhook_message_attempts (
    message_id text COLLATE "C" NOT NULL REFERENCES {schema}.webhook_messages (id) ON DELETE CASCADE,
    n integer NOT NULL,
    attempted_at bigint NOT NULL,
    status_code integer,
    latency_ms integer NOT NULL,
    outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'timeout', 'network', 'refused')),
    response_excerpt text,
    error text,
    PRIMARY KEY (message_id, n)
  );
  `,
  // 12: browsers held by an instance (docs/deploy.md, "Browsers held by instances"). An instance
  // records that it holds the browsers of its open streams, and then keeps all of them fresh
  // with its own row, instead of updating every browser's last-seen time (and its index
  // entries) over and over. The stale sweep reads only browsers held by nobody; those of an
  // instance not seen for the stale timeout are let go of first.
  `
  CREATE TABLE {schema}.instances (
    id text COLLATE "C" PRIMARY KEY,
    seen_at bigint NOT NULL
  );
  ALTER TABLE {schema}.browsers ADD COLUMN held_by text COLLATE "C";
  DROP INDEX {schema}.browsers_connected_by_last_seen;
  CREATE INDEX browsers_unheld_by_last_seen ON {schema}.browsers (last_seen_at, id) WHERE connected AND held_by IS NULL;
  CREATE INDEX browsers_by_holder ON {schema}.browsers (held_by) WHERE held_by IS NOT NULL;
  `,
  // 13: the inbox (docs/inbox.md). Every live notification is an item of its recipient's inbox,
  // made by a trigger in the insert's own transaction, whichever write inserts it (a send, a
  // batch of sends, a send in an application's transaction). The counts of each recipient are
  // kept by statement triggers on the items, in the transaction of every change, so they are
  // exact and one row to read (their version rises with every change, so that a browser told of
  // two changes keeps the later); each trigger writes its recipients' counts in one order, so two
  // transactions that change the counts of the same recipients wait for each other instead of
  // deadlocking. The live notifications of the last 90 days become items, unread.
  `
  CREATE TABLE {schema}.inbox_items (
    notification_id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL,
    recipient text COLLATE "C" NOT NULL,
    created_at bigint NOT NULL,
    seen_at bigint,
    read_at bigint,
    archived_at bigint,
    reminded_at bigint
  );
  CREATE INDEX inbox_items_by_recipient ON {schema}.inbox_items (project_id, recipient, notification_id);
  CREATE INDEX inbox_items_by_created_at ON {schema}.inbox_items (created_at);
  CREATE TABLE {schema}.inbox_counts (
    project_id text COLLATE "C" NOT NULL,
    recipient text COLLATE "C" NOT NULL,
    total bigint NOT NULL,
    unread bigint NOT NULL,
    unseen bigint NOT NULL,
    version bigint NOT NULL,
    PRIMARY KEY (project_id, recipient)
  );
  CREATE TABLE {schema}.inbox_retention (
    project_id text COLLATE "C" PRIMARY KEY,
    days integer NOT NULL
  );
  CREATE FUNCTION {schema}.inbox_items_of_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO {schema}.inbox_items (notification_id, project_id, recipient, created_at)
    SELECT id, project_id, recipient, created_at FROM new_rows WHERE mode = 'live' ORDER BY id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER inbox_items_of_notifications AFTER INSERT ON {schema}.notifications
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {schema}.inbox_items_of_notifications();
  CREATE FUNCTION {schema}.inbox_counts_of_new_items() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO {schema}.inbox_counts AS c (project_id, recipient, total, unread, unseen, version)
    SELECT project_id, recipient, sum(total), sum(unread), sum(unseen), 1 FROM (SELECT project_id, recipient, (archived_at IS NULL)::int AS total,
             (read_at IS NULL AND archived_at IS NULL)::int AS unread,
             (seen_at IS NULL AND archived_at IS NULL)::int AS unseen FROM new_rows) AS d
     GROUP BY project_id, recipient ORDER BY project_id, recipient
    ON CONFLICT (project_id, recipient) DO UPDATE SET
      total = c.total + excluded.total, unread = c.unread + excluded.unread, unseen = c.unseen + excluded.unseen,
      version = c.version + 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER inbox_counts_of_new_items AFTER INSERT ON {schema}.inbox_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {schema}.inbox_counts_of_new_items();
  CREATE FUNCTION {schema}.inbox_counts_of_changed_items() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO {schema}.inbox_counts AS c (project_id, recipient, total, unread, unseen, version)
    SELECT project_id, recipient, sum(total), sum(unread), sum(unseen), 1 FROM (SELECT project_id, recipient, (archived_at IS NULL)::int AS total,
             (read_at IS NULL AND archived_at IS NULL)::int AS unread,
             (seen_at IS NULL AND archived_at IS NULL)::int AS unseen FROM new_rows
      UNION ALL SELECT project_id, recipient, -(archived_at IS NULL)::int AS total,
             -(read_at IS NULL AND archived_at IS NULL)::int AS unread,
             -(seen_at IS NULL AND archived_at IS NULL)::int AS unseen FROM old_rows) AS d
     GROUP BY project_id, recipient ORDER BY project_id, recipient
    ON CONFLICT (project_id, recipient) DO UPDATE SET
      total = c.total + excluded.total, unread = c.unread + excluded.unread, unseen = c.unseen + excluded.unseen,
      version = c.version + 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER inbox_counts_of_changed_items AFTER UPDATE ON {schema}.inbox_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {schema}.inbox_counts_of_changed_items();
  CREATE FUNCTION {schema}.inbox_counts_of_deleted_items() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO {schema}.inbox_counts AS c (project_id, recipient, total, unread, unseen, version)
    SELECT project_id, recipient, sum(total), sum(unread), sum(unseen), 1 FROM (SELECT project_id, recipient, -(archived_at IS NULL)::int AS total,
             -(read_at IS NULL AND archived_at IS NULL)::int AS unread,
             -(seen_at IS NULL AND archived_at IS NULL)::int AS unseen FROM old_rows) AS d
     GROUP BY project_id, recipient ORDER BY project_id, recipient
    ON CONFLICT (project_id, recipient) DO UPDATE SET
      total = c.total + excluded.total, unread = c.unread + excluded.unread, unseen = c.unseen + excluded.unseen,
      version = c.version + 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER inbox_counts_of_deleted_items AFTER DELETE ON {schema}.inbox_items
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION {schema}.inbox_counts_of_deleted_items();
  INSERT INTO {schema}.inbox_items (notification_id, project_id, recipient, created_at)
  SELECT id, project_id, recipient, created_at FROM {schema}.notifications
   WHERE mode = 'live' AND created_at >= (extract(epoch FROM now())::bigint - 90 * 86400) * 1000
   ORDER BY id;
  `,
  // 14: what the dashboard's page of a browser shows: the User-Agent of the request that
  // registered it, and whether that was the event stream or the poll. Browsers from before keep
  // null ("not recorded").
  `
  ALTER TABLE {schema}.browsers ADD COLUMN user_agent text;
  ALTER TABLE {schema}.browsers ADD COLUMN connected_by text CHECK (connected_by IN ('stream', 'poll'));
  `,
  // 15: the request log (docs/api.md#request-log): every API request of a project, written in
  // batches after its answer, one statement per batch. Read newest first by request id (ids sort
  // by time), within a project, and searched by Idempotency-Key, recipient or notification; each
  // notification a request concerns is a row of its own, so that search is an index lookup.
  // Deleted oldest first by creation time.
  `
  CREATE TABLE {schema}.request_log (
    request_id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    status integer NOT NULL,
    code text,
    key_prefix text NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    idempotency_key text COLLATE "C",
    recipient text COLLATE "C",
    notification_ids text[] NOT NULL,
    created_at bigint NOT NULL,
    duration_ms double precision NOT NULL,
    request_body text,
    request_body_truncated boolean NOT NULL,
    response_body text,
    response_body_truncated boolean NOT NULL
  );
  CREATE INDEX request_log_by_project ON {schema}.request_log (project_id, request_id);
  CREATE INDEX request_log_by_idempotency_key ON {schema}.request_log (project_id, idempotency_key, request_id)
    WHERE idempotency_key IS NOT NULL;
  CREATE INDEX request_log_by_recipient ON {schema}.request_log (project_id, recipient, request_id)
    WHERE recipient IS NOT NULL;
  CREATE INDEX request_log_by_created_at ON {schema}.request_log (created_at);
  CREATE TABLE {schema}.request_log_notifications (
    request_id text COLLATE "C" NOT NULL,
    notification_id text COLLATE "C" NOT NULL,
    project_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (request_id, notification_id)
  );
  CREATE INDEX request_log_notifications_by_notification
    ON {schema}.request_log_notifications (project_id, notification_id, request_id);
  `,
  // 16: attempts with the indexes their reads need, and room to be marked in place. The unique
  // index on (browser_id, seq) goes: no read uses it (a browser's attempts are read pending,
  // through attempts_pending_by_browser), and a repeated seq cannot happen, since every write
  // that numbers a browser's attempts raises browsers.last_seq in the same statement, under that
  // row's lock. New pages are filled to half, so that the record of sending and the receipts of
  // engagement, which change no indexed column, find room on the attempt's own page and are
  // heap-only updates, which write no index entry (with a fifth free, 38% of them were; with
  // half, 98%). Pages written before keep their fill until rewritten.
  `
  ALTER TABLE {schema}.attempts DROP CONSTRAINT IF EXISTS attempts_browser_id_seq_key;
  ALTER TABLE {schema}.attempts SET (fillfactor = 50);
  `,
];

/** What {@link migrate} found and did. */
export interface MigrateResult {
  /** The schema's version before. */
  from: number;
  /** The schema's version now: the number of steps this package knows. */
  to: number;
}

/**
 * Where a list of steps keeps its versions: a table of the schema, and the package the steps are
 * of, which a refusal of a newer version names.
 */
export interface VersionTable {
  table: string;
  owner: string;
}

/** The store's own steps' table of versions. */
const STORE_VERSIONS: VersionTable = { table: 'schema_migrations', owner: '@tidings/store-postgres' };

/**
 * Brings a schema up to the latest version, creating it if missing. Everything runs in one
 * transaction under an advisory lock of the schema's name, so that instances starting together
 * apply each step exactly once, and a failing step leaves the schema as it was. A schema newer
 * than this package is refused rather than misread. The steps of another package's tables in
 * the schema (`migrateTables` of `@tidings/store-postgres/sql`) keep their versions in a
 * `versions` table of their own, under the same lock.
 */
export async function migrate(
  pool: Pool,
  schema: string,
  steps: readonly string[] = migrations,
  versions: VersionTable = STORE_VERSIONS,
): Promise<MigrateResult> {
  const table = quoteIdentifier(versions.table);
  const quoted = quoteIdentifier(schema);
  return transaction(pool, async (client) => {
    await runText(client, "SELECT pg_advisory_xact_lock(hashtext('tidings.migrate'), hashtext($1))", [schema]);
    await runText(client, `CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await runText(
      client,
      `CREATE TABLE IF NOT EXISTS ${quoted}.${table} (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const from = await schemaVersion(client, quoted, table);
    if (from > steps.length) {
      const found =
        versions === STORE_VERSIONS
          ? `The PostgreSQL schema ${schema} is version ${from}`
          : `The tables of ${versions.owner} in the PostgreSQL schema ${schema} are at version ${from}`;
      throw new Error(`${found}, newer than this ${versions.owner} supports (${steps.length})`);
    }
    for (let version = from + 1; version <= steps.length; version++) {
      await runText(client, steps[version - 1]!.replaceAll('{schema}', quoted));
      await runText(client, `INSERT INTO ${quoted}.${table} (version) VALUES ($1)`, [version]);
    }
    return { from, to: steps.length };
  });
}

/** The schema's version: 0 for a schema without migrations. */
async function schemaVersion(
  client: Parameters<typeof runText>[0],
  quoted: string,
  table = 'schema_migrations',
): Promise<number> {
  const rows = await runText<{ version: number | null }>(
    client,
    `SELECT max(version)::int8 AS version FROM ${quoted}.${table}`,
  );
  return rows[0]?.version ?? 0;
}

/**
 * The version of a schema, without changing anything: 0 when the schema or its table of
 * migrations does not exist.
 */
export async function readSchemaVersion(pool: Pool, schema: string): Promise<number> {
  const rows = await runText<{ exists: boolean }>(pool, 'SELECT to_regclass($1) IS NOT NULL AS exists', [
    `${quoteIdentifier(schema)}.schema_migrations`,
  ]);
  if (!rows[0]?.exists) return 0;
  return schemaVersion(pool, quoteIdentifier(schema));
}
