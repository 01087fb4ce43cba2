import { statSync } from 'node:fs';
import { hashSecret, newId, type Store } from '@tidings/core';
import { quietPeriod } from '@tidings/core/testing';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { migrateSqliteFile } from './migrate-file.js';
import { migrate, migrations } from './migrations.js';
import { openDatabase } from './open-database.js';
import { resolveSqliteStoreOptions, type SqliteStoreOptions } from './options.js';
import { requestLogPath } from './request-log-file.js';
import { connectionOf } from './sql.js';
import { createSqliteStore } from './sqlite-store.js';
import { MIGRATION_BASE_ROWS, seedKey as seedWith, sendLive } from './test-support/seed.js';
import { useStoreFile } from './test-support/store-file.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const KEY = `sk_live_${'A'.repeat(32)}`;

const file = useStoreFile();
const open = () => file.open();

function seedKey(store: Store) {
  return seedWith(store, KEY, T0);
}

/** Records many live sends from a store whose project and browser exist. */
async function sendMany(store: Store, count: number) {
  const { project } = await seedKey(store);
  await store.registerBrowser({
    id: newId('brw', T0),
    projectId: project.id,
    recipient: 'r',
    secretHash: hashSecret('bs_x'),
    now: T0,
  });
  for (let i = 0; i < count; i++) {
    expect((await sendLive(store, project.id, T0, { body: 'x'.repeat(200) })).kind).toBe('created');
  }
}

/**
 * The dashboard's tables as the core's step 6 made them in a database of an earlier release,
 * before the dashboard's own migrations (in @tidings/dashboard) made them: the core's later steps
 * must leave them, and their rows, as they are.
 */
const DASHBOARD_TABLES_OF_STEP_6 = `
  ALTER TABLE accounts ADD COLUMN password_hash TEXT;
  ALTER TABLE accounts ADD COLUMN operator INTEGER NOT NULL DEFAULT 0 CHECK (operator IN (0, 1));
  CREATE INDEX accounts_by_email ON accounts (email);

  CREATE TABLE sessions (
    hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at INTEGER NOT NULL,
    idle_expires_at INTEGER NOT NULL,
    absolute_expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX sessions_by_account ON sessions (account_id);

  CREATE TABLE email_codes (
    email TEXT NOT NULL,
    purpose TEXT NOT NULL CHECK (purpose IN ('verify', 'reset', 'invite', 'sign-in')),
    code_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (email, purpose)
  ) WITHOUT ROWID;

  CREATE TABLE audit_events (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    action TEXT NOT NULL,
    actor_account_id TEXT,
    actor_email TEXT,
    ip TEXT,
    detail TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX audit_events_by_project ON audit_events (project_id, id);
  `;

const framesOf = (walBytes: number) => Math.max(0, (walBytes - 32) / (4096 + 24));

describe('checkpoints', () => {
  it('copies the WAL into the database file from a thread of its own, below SQLite’s threshold', async () => {
    const store = file.open({ checkpointIntervalMs: 20 });
    const before = statSync(file.path).size;
    await sendMany(store, 60); // some 600 pages, one commit each: under SQLite's 1000
    const wal = statSync(`${file.path}-wal`).size;
    expect(framesOf(wal)).toBeLessThan(1000);
    // The committing connection no longer checkpoints at SQLite's 1000 pages…
    const raw = new Database(file.path);
    try {
      await vi.waitFor(() => expect(statSync(file.path).size).toBeGreaterThan(before), { timeout: 3000 });
      // …and the thread copied every frame there was, so the next write restarts the WAL.
      const [progress] = raw.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      expect(progress!.checkpointed).toBe(progress!.log);
    } finally {
      raw.close();
    }
    await store.close();
    await store.close(); // closing twice is harmless
  });

  it('makes a last pass when the store closes, so that its own close has nothing left to copy', async () => {
    const store = file.open({ checkpointIntervalMs: 60_000 });
    await sendMany(store, 20);
    const before = statSync(file.path).size;
    // Another connection stays open: the store's committing connection is then not the last to
    // close, and copies nothing itself; only the thread's last pass can have grown the file.
    const raw = new Database(file.path);
    try {
      // A read makes it a connection of the WAL database, holding its shared lock.
      raw.prepare('SELECT count(*) FROM sqlite_master').get();
      await store.close();
      expect(statSync(file.path).size).toBeGreaterThan(before);
      // Emptying the WAL loses none of the sends it held.
      expect(raw.prepare('SELECT count(*) AS n FROM notifications').get()).toEqual({ n: 20 });
    } finally {
      raw.close();
    }
  });

  it('leaves checkpoints to SQLite with checkpointIntervalMs 0', async () => {
    const store = file.open({ checkpointIntervalMs: 0 });
    const before = statSync(file.path).size;
    await sendMany(store, 60);
    await quietPeriod(300, 'a checkpoint that should not run');
    // No thread copies anything; SQLite itself would at 1000 pages.
    expect(statSync(file.path).size).toBe(before);
  });
});

describe('a store on a file', () => {
  it('uses WAL, NORMAL sync, foreign keys, and records the schema version', () => {
    open();
    const raw = new Database(file.path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(migrations.length);
    } finally {
      raw.close();
    }
  });

  it('reopens a file without re-applying migrations, keeping its data', async () => {
    const first = open();
    const { key } = await seedKey(first);
    await first.close();
    const second = open();
    const third = open();
    expect(await second.getApiKey(key.id)).toEqual(key);
    expect((await third.findApiKeyByHash(hashSecret(KEY)))?.key).toEqual(key);
  });

  it('refuses a file whose schema is newer than this package', () => {
    const raw = new Database(file.path);
    raw.pragma(`user_version = ${migrations.length + 1}`);
    raw.close();
    expect(() => createSqliteStore({ path: file.path })).toThrow(/newer than this @tidings\/store-sqlite supports/);
  });

  it('shows a revocation or suspension by another instance (the CLI) to the next lookup', async () => {
    const server = open();
    const cli = open();
    const { project, key } = await seedKey(cli);
    expect(await server.findApiKeyByHash(hashSecret(KEY))).toEqual({ key, project });

    await cli.setProjectSuspended({ id: project.id, suspended: true, now: T0 + 1 });
    expect((await server.findApiKeyByHash(hashSecret(KEY)))?.project).toMatchObject({ suspended: true });
    await cli.setProjectSuspended({ id: project.id, suspended: false, now: T0 + 2 });
    expect((await server.findApiKeyByHash(hashSecret(KEY)))?.project.suspended).toBe(false);

    await cli.revokeApiKey({ id: key.id, now: T0 + 3 });
    expect((await server.findApiKeyByHash(hashSecret(KEY)))?.key.revokedAt).toBe(T0 + 3);
  });
});

describe('migrate', () => {
  it('applies only the steps a database lacks, in order', () => {
    const db = new Database(':memory:');
    try {
      expect(migrate(db, ['CREATE TABLE a (x)'])).toBe(1);
      expect(migrate(db, ['CREATE TABLE a (x)', 'CREATE TABLE b (y)'])).toBe(2);
      expect(migrate(db, ['CREATE TABLE a (x)', 'CREATE TABLE b (y)'])).toBe(2);
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(['a', 'b']);
    } finally {
      db.close();
    }
  });

  it('rolls a failing step back whole, leaving the version where it was', () => {
    const db = new Database(':memory:');
    try {
      migrate(db, ['CREATE TABLE a (x)']);
      expect(() => migrate(db, ['CREATE TABLE a (x)', 'CREATE TABLE b (y); CREATE TABLE a (z)'])).toThrow();
      expect(db.pragma('user_version', { simple: true })).toBe(1);
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'b'").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe('migration 2: attempts carry their expiry', () => {
  it('fills the expiry of attempts recorded under version 1, so the sweep still expires them', async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 1));
    raw.exec(`
      ${MIGRATION_BASE_ROWS(T0)}
      INSERT INTO browsers (id, project_id, recipient, secret_hash, connected, created_at, last_seen_at, last_seq)
        VALUES ('brw_1', 'proj_1', 'r', 'h', 1, ${T0}, ${T0}, 2);
      INSERT INTO notifications (id, project_id, mode, recipient, title, ttl, created_at, expires_at)
        VALUES ('ntf_1', 'proj_1', 'live', 'r', 'soon', 60, ${T0}, ${T0 + 60_000}),
               ('ntf_2', 'proj_1', 'live', 'r', 'later', 3600, ${T0}, ${T0 + 3_600_000});
      INSERT INTO attempts (id, notification_id, browser_id, seq, status, final, accepted_at)
        VALUES ('att_1', 'ntf_1', 'brw_1', 1, 'accepted', 0, ${T0}), ('att_2', 'ntf_2', 'brw_1', 2, 'sent', 0, ${T0});
    `);
    raw.close();

    const store = open();
    expect(await store.expireAttempts({ now: T0 + 59_999 })).toEqual([]);
    expect(await store.expireAttempts({ now: T0 + 60_000 })).toEqual([{ attemptId: 'att_1', browserId: 'brw_1' }]);
    const check = new Database(file.path, { readonly: true });
    try {
      expect(check.pragma('user_version', { simple: true })).toBe(migrations.length);
      expect(check.prepare('SELECT id, expires_at FROM attempts ORDER BY id').all()).toEqual([
        { id: 'att_1', expires_at: T0 + 60_000 },
        { id: 'att_2', expires_at: T0 + 3_600_000 },
      ]);
    } finally {
      check.close();
    }
  });
});

describe('migration 4: attempts without foreign keys', () => {
  it('keeps every attempt, their order within a notification, and the indexes the reads use', async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 3));
    raw.exec(`
      ${MIGRATION_BASE_ROWS(T0)}
      INSERT INTO browsers (id, project_id, recipient, secret_hash, connected, created_at, last_seen_at, last_seq)
        VALUES ('brw_b', 'proj_1', 'r', 'h', 1, ${T0}, ${T0}, 1), ('brw_a', 'proj_1', 'r', 'h', 1, ${T0 + 1}, ${T0}, 1);
      INSERT INTO notifications (id, project_id, mode, recipient, title, ttl, created_at, expires_at)
        VALUES ('ntf_1', 'proj_1', 'live', 'r', 'hello', 60, ${T0}, ${T0 + 60_000});
      INSERT INTO attempts (id, notification_id, browser_id, seq, status, final, accepted_at, delivered_at, expires_at)
        VALUES ('att_z', 'ntf_1', 'brw_b', 1, 'delivered', 1, ${T0}, ${T0 + 5}, ${T0 + 60_000}),
               ('att_y', 'ntf_1', 'brw_a', 1, 'accepted', 0, ${T0}, NULL, ${T0 + 60_000});
    `);
    const before = raw.prepare('SELECT * FROM attempts ORDER BY rowid').all();
    raw.close();

    const store = open();
    const read = await store.getNotification({ projectId: 'proj_1', id: 'ntf_1' });
    // Read back in insertion order, not in id order.
    expect(read?.attempts.map((attempt) => attempt.id)).toEqual(['att_z', 'att_y']);
    expect(read?.attempts[0]).toMatchObject({ status: 'delivered', final: true, deliveredAt: T0 + 5 });
    expect(await store.listDeliveries({ browserId: 'brw_a', now: T0 })).toMatchObject([{ attemptId: 'att_y', seq: 1 }]);
    const check = new Database(file.path, { readonly: true });
    try {
      // Every row kept as it was; later steps add the path an attempt went out by and the time a
      // push service accepted it, null for these.
      expect(check.prepare('SELECT * FROM attempts ORDER BY rowid').all()).toEqual(
        (before as Record<string, unknown>[]).map((row) => ({ ...row, sent_via: null, push_accepted_at: null })),
      );
      expect(check.prepare("SELECT count(*) FROM pragma_foreign_key_list('attempts')").pluck().get()).toBe(0);
      expect(
        check
          .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'attempts' ORDER BY name")
          .pluck()
          .all(),
      ).toEqual([
        // Step 16 drops the unique index on (browser_id, seq), which no read used.
        'attempts_by_notification',
        'attempts_pending_by_browser',
        'attempts_pending_by_expiry',
        'sqlite_autoindex_attempts_1',
      ]);
    } finally {
      check.close();
    }
  });
});

describe('migration 5: idempotency results only', () => {
  it('drops the claims a crashed process left running and keeps completed results for replay', async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 4));
    const expires = T0 + 86_400_000;
    raw.exec(`
      ${MIGRATION_BASE_ROWS(T0)}
      INSERT INTO idempotency_keys
        (project_id, key, fingerprint, state, response_status, response_body, created_at, expires_at, lock_expires_at)
        VALUES ('proj_1', 'done', 'fp', 'completed', 201, '{"id":"ntf_1"}', ${T0}, ${expires}, ${T0 + 60_000}),
               ('proj_1', 'orphan', 'fp', 'running', NULL, NULL, ${T0}, ${expires}, ${T0 + 60_000});
    `);
    raw.close();

    const store = open();
    const find = (key: string) =>
      store.findIdempotentResponse({ projectId: 'proj_1', key, fingerprint: 'fp', now: T0 + 1 });
    expect(await find('done')).toEqual({ kind: 'replay', status: 201, body: '{"id":"ntf_1"}' });
    expect(await find('orphan')).toEqual({ kind: 'none' });
  });
});

/** The rows of the dashboard's tables, read as they are, without the dashboard. */
function dashboardRows(path: string, table: string): unknown[] {
  const raw = new Database(path, { readonly: true });
  try {
    return raw.prepare(`SELECT * FROM ${table}`).all();
  } finally {
    raw.close();
  }
}

describe("migration 7: operators' actions", () => {
  it("keeps projects, which then take reasons and actors, and the dashboard's codes and audit entries", async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 6));
    raw.exec(DASHBOARD_TABLES_OF_STEP_6);
    raw.exec(`
      INSERT INTO accounts (id, email, verified, created_at) VALUES ('acct_1', 'a@example.com', 1, ${T0});
      INSERT INTO projects (id, account_id, name, suspended, created_at, suspended_at)
        VALUES ('proj_1', 'acct_1', 'P', 1, ${T0}, ${T0 + 1});
      INSERT INTO email_codes (email, purpose, code_hash, created_at, expires_at, failed_attempts)
        VALUES ('x@example.com', 'invite', 'h', ${T0}, ${T0 + 86_400_000}, 0);
      INSERT INTO audit_events (id, project_id, action, actor_account_id, actor_email, ip, detail, created_at)
        VALUES ('aud_1', 'proj_1', 'project.created', 'acct_1', 'a@example.com', '127.0.0.1', 'P', ${T0});
    `);
    raw.close();

    const store = open();
    expect(await store.getProject('proj_1')).toMatchObject({
      suspended: true,
      suspendedAt: T0 + 1,
      suspendedReason: null,
      suspendedBy: null,
    });
    // The dashboard's own migrations bring these up to date when it opens them.
    expect(dashboardRows(file.path, 'email_codes')).toEqual([
      {
        email: 'x@example.com',
        purpose: 'invite',
        code_hash: 'h',
        created_at: T0,
        expires_at: T0 + 86_400_000,
        failed_attempts: 0,
      },
    ]);
    expect(dashboardRows(file.path, 'audit_events')).toEqual([
      {
        id: 'aud_1',
        project_id: 'proj_1',
        action: 'project.created',
        actor_account_id: 'acct_1',
        actor_email: 'a@example.com',
        ip: '127.0.0.1',
        detail: 'P',
        created_at: T0,
      },
    ]);
  });
});

describe('migration 8: a second factor for dashboard accounts', () => {
  it("keeps accounts with the dashboard's passwords and operator flags, and its sessions", async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 7));
    raw.exec(DASHBOARD_TABLES_OF_STEP_6);
    raw.exec(`
      INSERT INTO accounts (id, email, verified, created_at, password_hash, operator)
        VALUES ('acct_1', 'a@example.com', 1, ${T0}, 'scrypt$hash', 1);
      INSERT INTO sessions (hash, account_id, created_at, idle_expires_at, absolute_expires_at)
        VALUES ('session-hash', 'acct_1', ${T0}, ${T0 + 60_000}, ${T0 + 120_000});
    `);
    raw.close();

    const store = open();
    expect(await store.getAccount('acct_1')).toEqual({
      id: 'acct_1',
      email: 'a@example.com',
      verified: true,
      createdAt: T0,
    });
    expect(dashboardRows(file.path, 'accounts')).toMatchObject([{ password_hash: 'scrypt$hash', operator: 1 }]);
    expect(dashboardRows(file.path, 'sessions')).toEqual([
      {
        hash: 'session-hash',
        account_id: 'acct_1',
        created_at: T0,
        idle_expires_at: T0 + 60_000,
        absolute_expires_at: T0 + 120_000,
      },
    ]);
  });
});

describe('migration 11: notifications record where they came from', () => {
  it('keeps the notifications recorded before, reading their key, request id and Idempotency-Key as null', async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 10));
    raw.exec(`
      ${MIGRATION_BASE_ROWS(T0)}
      INSERT INTO browsers (id, project_id, recipient, secret_hash, connected, created_at, last_seen_at, last_seq)
        VALUES ('brw_1', 'proj_1', 'r', 'h', 1, ${T0}, ${T0}, 1);
      INSERT INTO notifications (id, project_id, mode, recipient, title, data, ttl, created_at, expires_at)
        VALUES ('ntf_01jdv5cz00k2a7d3m9qx4w8t6e', 'proj_1', 'live', 'r', 'old', '{"a":1}', 60, ${T0}, ${T0 + 60_000});
      INSERT INTO attempts (id, notification_id, browser_id, seq, status, final, accepted_at, expires_at)
        VALUES ('att_1', 'ntf_01jdv5cz00k2a7d3m9qx4w8t6e', 'brw_1', 1, 'accepted', 0, ${T0}, ${T0 + 60_000});
    `);
    raw.close();

    const store = open();
    const found = await store.getNotification({ projectId: 'proj_1', id: 'ntf_01jdv5cz00k2a7d3m9qx4w8t6e' });
    expect(found?.notification).toMatchObject({
      title: 'old',
      data: { a: 1 },
      apiKeyId: null,
      requestId: null,
      idempotencyKey: null,
    });
    expect(found?.attempts.map((attempt) => attempt.id)).toEqual(['att_1']);
  });
});

describe('migration 14: Web Push', () => {
  it('keeps every attempt with its path, and lets attempts go out by push or fail as rejected', async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 13));
    raw.exec(`
      ${MIGRATION_BASE_ROWS(T0)}
      INSERT INTO browsers (id, project_id, recipient, secret_hash, connected, created_at, last_seen_at, last_seq)
        VALUES ('brw_1', 'proj_1', 'r', 'h', 1, ${T0}, ${T0}, 3);
      INSERT INTO notifications (id, project_id, mode, recipient, title, ttl, created_at, expires_at)
        VALUES ('ntf_01jdv5cz00k2a7d3m9qx4w8t6e', 'proj_1', 'live', 'r', 'old', 60, ${T0}, ${T0 + 60_000});
      INSERT INTO attempts (id, notification_id, browser_id, seq, status, final, accepted_at, sent_at, sent_via, expires_at)
        VALUES ('att_b', 'ntf_01jdv5cz00k2a7d3m9qx4w8t6e', 'brw_1', 1, 'sent', 0, ${T0}, ${T0 + 1}, 'poll', ${T0 + 60_000}),
               ('att_a', 'ntf_01jdv5cz00k2a7d3m9qx4w8t6e', 'brw_1', 2, 'accepted', 0, ${T0}, NULL, NULL, ${T0 + 60_000}),
               ('att_c', 'ntf_01jdv5cz00k2a7d3m9qx4w8t6e', 'brw_1', 3, 'accepted', 0, ${T0}, NULL, NULL, ${T0 + 60_000});
    `);
    raw.close();

    const store = open();
    await store.markAttemptPushed({ attemptId: 'att_a', now: T0 + 10 });
    await store.failAttempt({ attemptId: 'att_c', reason: 'push_rejected', now: T0 + 20 });
    const found = await store.getNotification({ projectId: 'proj_1', id: 'ntf_01jdv5cz00k2a7d3m9qx4w8t6e' });
    expect(
      found?.attempts.map(({ id, status, sentVia, pushAcceptedAt, reason }) => ({
        id,
        status,
        sentVia,
        pushAcceptedAt,
        reason,
      })),
    ).toEqual([
      { id: 'att_b', status: 'sent', sentVia: 'poll', pushAcceptedAt: null, reason: null },
      { id: 'att_a', status: 'sent', sentVia: 'push', pushAcceptedAt: T0 + 10, reason: null },
      { id: 'att_c', status: 'failed', sentVia: null, pushAcceptedAt: null, reason: 'push_rejected' },
    ]);
    expect(await store.listDeliveries({ browserId: 'brw_1', now: T0 })).toMatchObject([
      { attemptId: 'att_b' },
      { attemptId: 'att_a' },
    ]);
  });
});

describe('migration 15: webhook delivery', () => {
  it('keeps the endpoints made before, not failing, and records their messages', async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 14));
    raw.exec(`
      INSERT INTO accounts (id, email, verified, created_at) VALUES ('acct_1', 'a@example.com', 1, ${T0});
      INSERT INTO projects (id, account_id, name, suspended, created_at) VALUES ('proj_1', 'acct_1', 'P', 0, ${T0});
      INSERT INTO webhook_endpoints (id, project_id, url, events, status, secret, created_at, updated_at)
        VALUES ('whe_1', 'proj_1', 'https://example.com/hook', '["*"]', 'enabled', 'whsec_x', ${T0}, ${T0});
    `);
    raw.close();

    const store = open();
    expect(await store.getWebhookEndpoint('whe_1')).toMatchObject({ failingSince: null, status: 'enabled' });
    const [message] = await store.enqueueWebhookMessages({
      messages: [
        {
          id: 'msg_1',
          projectId: 'proj_1',
          endpointId: 'whe_1',
          eventType: 'webhook.test',
          payload: { type: 'webhook.test' },
          orderKey: 'msg_1',
          createdAt: T0 + 1,
        },
      ],
      now: T0 + 1,
    });
    expect(message).toMatchObject({ id: 'msg_1', status: 'pending', attempts: 0, nextAttemptAt: T0 + 1 });
    expect(await store.listJobs({ projectId: 'proj_1', limit: 10 })).toMatchObject([
      { kind: 'webhook', key: 'webhook:whe_1:msg_1', payload: { messageId: 'msg_1' } },
    ]);
  });
});

describe('migration 16: no unique index on (browser_id, seq)', () => {
  it('keeps every attempt, reads pending ones in stream order through an index, and goes on numbering', async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 15));
    raw.exec(`
      ${MIGRATION_BASE_ROWS(T0)}
      INSERT INTO browsers (id, project_id, recipient, secret_hash, connected, created_at, last_seen_at, last_seq)
        VALUES ('brw_1', 'proj_1', 'r', 'h', 1, ${T0}, ${T0}, 3);
      INSERT INTO notifications (id, project_id, mode, recipient, title, ttl, created_at, expires_at)
        VALUES ('ntf_1', 'proj_1', 'live', 'r', 'old', 60, ${T0}, ${T0 + 60_000});
      INSERT INTO attempts (id, notification_id, browser_id, seq, status, final, accepted_at, delivered_at, expires_at)
        VALUES ('att_c', 'ntf_1', 'brw_1', 1, 'delivered', 1, ${T0}, ${T0 + 1}, ${T0 + 60_000}),
               ('att_b', 'ntf_1', 'brw_1', 3, 'accepted', 0, ${T0}, NULL, ${T0 + 60_000}),
               ('att_a', 'ntf_1', 'brw_1', 2, 'accepted', 0, ${T0}, NULL, ${T0 + 60_000});
    `);
    const before = raw.prepare('SELECT * FROM attempts ORDER BY rowid').all();
    raw.close();

    const store = open();
    expect(await store.listDeliveries({ browserId: 'brw_1', now: T0 })).toMatchObject([
      { attemptId: 'att_a', seq: 2 },
      { attemptId: 'att_b', seq: 3 },
    ]);
    const sent = await sendLive(store, 'proj_1', T0 + 2);
    expect(sent.kind === 'created' && sent.created.attempts.map((attempt) => attempt.seq)).toEqual([4]);
    const check = new Database(file.path, { readonly: true });
    try {
      expect(check.prepare('SELECT * FROM attempts ORDER BY rowid LIMIT 3').all()).toEqual(before);
      expect(
        check
          .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'attempts' ORDER BY name")
          .pluck()
          .all(),
      ).toEqual([
        'attempts_by_notification',
        'attempts_pending_by_browser',
        'attempts_pending_by_expiry',
        'sqlite_autoindex_attempts_1',
      ]);
      // The reads of a browser's attempts go through the partial index of pending ones.
      const plan = (sql: string) =>
        check
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all('brw_1')
          .map((row) => (row as { detail: string }).detail);
      expect(plan('SELECT id FROM attempts WHERE browser_id = ? AND final = 0 ORDER BY seq')).toEqual([
        'SEARCH attempts USING INDEX attempts_pending_by_browser (browser_id=?)',
      ]);
    } finally {
      check.close();
    }
  });
});

describe('migrations 21 and 22: the request log in four B-trees per entry, then in a file of its own', () => {
  it('keeps every entry and every notification it concerns, found by search, and purges in the order written', async () => {
    const raw = new Database(file.path);
    migrate(raw, migrations.slice(0, 20));
    raw.exec(`
      ${MIGRATION_BASE_ROWS(T0)}
      INSERT INTO request_log (request_id, project_id, method, path, status, code, key_prefix, mode, idempotency_key,
        recipient, notification_ids, created_at, duration_ms, request_body, request_body_truncated, response_body,
        response_body_truncated)
      VALUES
        ('req_2', 'proj_1', 'POST', '/v1/inbox/r/read', 200, NULL, 'sk_live_AAAA', 'live', NULL, 'r',
          '["ntf_1","ntf_2","ntf_3"]', ${T0 + 1}, 1.5, '{"ids":[]}', 0, '{}', 1),
        ('req_1', 'proj_1', 'POST', '/v1/notifications', 409, 'NO_CONNECTED_BROWSER', 'sk_live_AAAA', 'test', 'k-1',
          'r', '[]', ${T0}, 0.25, NULL, 0, NULL, 0);
      INSERT INTO request_log_notifications (request_id, notification_id, project_id)
      VALUES ('req_2', 'ntf_1', 'proj_1'), ('req_2', 'ntf_2', 'proj_1'), ('req_2', 'ntf_3', 'proj_1');
    `);
    raw.close();

    const store = open();
    const marked = {
      requestId: 'req_2',
      projectId: 'proj_1',
      method: 'POST',
      path: '/v1/inbox/r/read',
      status: 200,
      code: null,
      keyPrefix: 'sk_live_AAAA',
      mode: 'live',
      idempotencyKey: null,
      notificationIds: ['ntf_1', 'ntf_2', 'ntf_3'],
      recipient: 'r',
      createdAt: T0 + 1,
      durationMs: 1.5,
      requestBody: { text: '{"ids":[]}', truncated: false },
      responseBody: { text: '{}', truncated: true },
    };
    expect(await store.getRequestLogEntry({ projectId: 'proj_1', requestId: 'req_2' })).toEqual(marked);
    expect(await store.getRequestLogEntry({ projectId: 'proj_1', requestId: 'req_1' })).toMatchObject({
      notificationIds: [],
      idempotencyKey: 'k-1',
      code: 'NO_CONNECTED_BROWSER',
    });
    const search = async (value: { notificationId: string } | { keyOrRecipient: string }) =>
      (
        await store.listRequestLog({
          projectId: 'proj_1',
          statusClass: null,
          mode: null,
          search: value,
          limit: 10,
          startingAfter: null,
        })
      ).entries.map((entry) => entry.requestId);
    for (const notificationId of ['ntf_1', 'ntf_2', 'ntf_3'])
      expect(await search({ notificationId })).toEqual(['req_2']);
    expect(await search({ keyOrRecipient: 'k-1' })).toEqual(['req_1']);
    // The log left the database for its own file; the database has no table of it any more.
    const main = new Database(file.path, { readonly: true });
    try {
      expect(main.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'request_log%'").all()).toEqual([]);
    } finally {
      main.close();
    }
    const check = new Database(requestLogPath(file.path), { readonly: true });
    try {
      // The first notification is the row's own column; only the further ones stay side rows.
      expect(check.prepare('SELECT notification_id FROM request_log_notifications ORDER BY 1').pluck().all()).toEqual([
        'ntf_2',
        'ntf_3',
      ]);
      // Copied oldest first, so the purge (in the order written) takes the older entry first.
      expect(check.prepare('SELECT request_id FROM request_log ORDER BY seq').pluck().all()).toEqual([
        'req_1',
        'req_2',
      ]);
    } finally {
      check.close();
    }
    expect(await store.purgeRequestLog({ before: T0 + 1, limit: 10 })).toBe(1);
    expect(await store.purgeRequestLog({ before: T0 + 2, limit: 10 })).toBe(1);
    const after = new Database(requestLogPath(file.path), { readonly: true });
    try {
      expect(after.prepare('SELECT count(*) FROM request_log_notifications').pluck().get()).toBe(0);
    } finally {
      after.close();
    }
  });
});

describe('createSqliteStore options', () => {
  it('opens with synchronous FULL by default, NORMAL with synchronous: normal', () => {
    const pragma = (options: Omit<SqliteStoreOptions, 'path'>) => {
      const db = openDatabase(resolveSqliteStoreOptions({ path: file.path, ...options }));
      try {
        return db.pragma('synchronous', { simple: true });
      } finally {
        db.close();
      }
    };
    // SQLite's numbers: 1 NORMAL, 2 FULL.
    expect(pragma({})).toBe(2);
    expect(pragma({ synchronous: 'full' })).toBe(2);
    expect(pragma({ synchronous: 'normal' })).toBe(1);
    // @ts-expect-error: not a mode
    expect(() => createSqliteStore({ path: ':memory:', synchronous: 'off' })).toThrow(/synchronous/);
  });

  it('holds a page cache of cacheSizeKb, 32 MiB by default', () => {
    const cacheSize = (options: Omit<SqliteStoreOptions, 'path'>) => {
      const db = openDatabase(resolveSqliteStoreOptions({ path: file.path, ...options }));
      try {
        return db.pragma('cache_size', { simple: true });
      } finally {
        db.close();
      }
    };
    // Negative: KiB rather than pages.
    expect(cacheSize({})).toBe(-32_768);
    expect(cacheSize({ cacheSizeKb: 2000 })).toBe(-2000);
    expect(() => createSqliteStore({ path: ':memory:', cacheSizeKb: -1 })).toThrow(/cacheSizeKb/);
  });

  it('refuses a bad configuration at construction', () => {
    expect(() => createSqliteStore({ path: '' })).toThrow(TypeError);
    expect(() => createSqliteStore({ path: ':memory:', busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs/);
    expect(() => createSqliteStore({ path: ':memory:', busyTimeoutMs: 1.5 })).toThrow(/busyTimeoutMs/);
  });

  it('waits busyTimeoutMs for another connection’s write lock, then fails', async () => {
    const store = file.open({ busyTimeoutMs: 100 });
    const other = new Database(file.path);
    try {
      other.exec('BEGIN IMMEDIATE');
      const started = performance.now();
      await expect(
        store.createAccount({ id: newId('acct', T0), email: 'a@example.com', verified: true, now: T0 }),
      ).rejects.toThrow(/locked|busy/i);
      expect(performance.now() - started).toBeGreaterThanOrEqual(90);
      other.exec('ROLLBACK');
      await expect(store.listAccounts()).resolves.toEqual([]);
    } finally {
      other.close();
    }
  });
});

describe("the dashboard's tables", () => {
  const DASHBOARD_TABLES = [
    'audit_events',
    'dashboard_migrations',
    'email_codes',
    'passkeys',
    'pending_sign_ins',
    'recovery_codes',
    'sessions',
    'webauthn_challenges',
  ];
  function tablesIn(path: string): { tables: string[]; accountColumns: string[] } {
    const raw = new Database(path, { readonly: true });
    try {
      const tables = (
        raw
          .prepare(
            `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${DASHBOARD_TABLES.map(() => '?').join(', ')}) ORDER BY name`,
          )
          .all(...DASHBOARD_TABLES) as { name: string }[]
      ).map((row) => row.name);
      const accountColumns = (raw.pragma('table_info(accounts)') as { name: string }[]).map((column) => column.name);
      return { tables, accountColumns };
    } finally {
      raw.close();
    }
  }

  it('are never made by the store: a database without the dashboard has none of them', async () => {
    const store = open();
    await seedKey(store);
    expect(migrateSqliteFile(file.path)).toEqual({ from: migrations.length, to: migrations.length });
    expect(tablesIn(file.path)).toEqual({ tables: [], accountColumns: ['id', 'email', 'verified', 'created_at'] });
  });

  it("are migrated by the function migrateSqliteFile is given, on its connection, after the store's own", () => {
    const seen: number[] = [];
    const result = migrateSqliteFile(file.path, 5000, {
      alsoMigrate: (database) => {
        expect(database.dialect).toBe('sqlite');
        connectionOf(database).exec('CREATE TABLE sessions (hash TEXT PRIMARY KEY)');
        seen.push(connectionOf(database).pragma('user_version', { simple: true }) as number);
        return { from: 0, to: 1 };
      },
    });
    expect(result).toEqual({ from: 0, to: migrations.length, alsoMigrated: { from: 0, to: 1 } });
    expect(seen).toEqual([migrations.length]);
    expect(tablesIn(file.path).tables).toEqual(['sessions']);
  });
});
