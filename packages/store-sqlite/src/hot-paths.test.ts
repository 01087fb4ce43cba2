import { hashSecret, type NotificationWithAttempts, newId, type ProjectRecord, type Store } from '@tidings/core';
import type { CreateNotificationResult } from '@tidings/core/store';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite-store.js';
import { seedKey, sendLive } from './test-support/seed.js';
import { useStoreFile } from './test-support/store-file.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const KEY = `sk_live_${'B'.repeat(32)}`;

const file = useStoreFile();
const open = (busyTimeoutMs?: number, notificationCacheSize?: number) =>
  file.open({
    ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }),
    ...(notificationCacheSize === undefined ? {} : { notificationCacheSize }),
  });

/** A raw connection to the same file, as another tool (or an operator with sqlite3) would have. */
function raw(): Database.Database {
  return new Database(file.path);
}

async function seed(store: Store) {
  const { project, key } = await seedKey(store, KEY, T0);
  const browser = await store.registerBrowser({
    id: newId('brw', T0),
    projectId: project.id,
    recipient: 'r',
    secretHash: hashSecret('bs_secret'),
    now: T0,
  });
  return { project, key, browser };
}

function send(store: Store, project: ProjectRecord, attemptId?: string): Promise<CreateNotificationResult> {
  return sendLive(store, project.id, T0, { data: { n: 1 }, ...(attemptId === undefined ? {} : { attemptId }) });
}

function created(result: CreateNotificationResult): NotificationWithAttempts {
  if (result.kind !== 'created') throw new Error(`expected created, got ${result.kind}`);
  return result.created;
}

describe('key lookups', () => {
  it('see a revocation or suspension written by any connection, even in plain SQL, at the next lookup', async () => {
    const store = open();
    const { key, project } = await seed(store);
    const hash = hashSecret(KEY);
    expect(await store.findApiKeyByHash(hash)).toEqual({ key, project });
    const other = raw();
    try {
      other.prepare('UPDATE projects SET suspended = 1, suspended_at = ? WHERE id = ?').run(T0 + 1, project.id);
      expect((await store.findApiKeyByHash(hash))?.project.suspended).toBe(true);
      other.prepare('UPDATE projects SET suspended = 0, suspended_at = NULL WHERE id = ?').run(project.id);
      expect((await store.findApiKeyByHash(hash))?.project.suspended).toBe(false);
      other.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(T0 + 2, key.id);
      expect((await store.findApiKeyByHash(hash))?.key.revokedAt).toBe(T0 + 2);
      other.prepare('UPDATE api_keys SET hash = ? WHERE id = ?').run('moved', key.id);
      expect(await store.findApiKeyByHash(hash)).toBeNull();
    } finally {
      other.close();
    }
  });

  it('see their own process revoke and suspend at once', async () => {
    const store = open();
    const { key, project } = await seed(store);
    const hash = hashSecret(KEY);
    expect((await store.findApiKeyByHash(hash))?.key.revokedAt).toBeNull();
    await store.setProjectSuspended({ id: project.id, suspended: true, now: T0 + 1 });
    expect((await store.findApiKeyByHash(hash))?.project.suspended).toBe(true);
    await store.revokeApiKey({ id: key.id, now: T0 + 2 });
    expect((await store.findApiKeyByHash(hash))?.key.revokedAt).toBe(T0 + 2);
  });

  it('find a key created after an unknown one was looked up', async () => {
    const store = open();
    const { project } = await seed(store);
    const later = `sk_test_${'C'.repeat(32)}`;
    expect(await store.findApiKeyByHash(hashSecret(later))).toBeNull();
    const other = open();
    await other.createApiKey({
      id: newId('key', T0),
      projectId: project.id,
      hash: hashSecret(later),
      prefix: later.slice(0, 12),
      mode: 'test',
      name: null,
      now: T0,
      maxActive: 10,
    });
    expect((await store.findApiKeyByHash(hashSecret(later)))?.key.mode).toBe('test');
  });

  it('follow last-used writes and hand out lookups the caller cannot spoil', async () => {
    const store = open();
    const { key } = await seed(store);
    const hash = hashSecret(KEY);
    const first = await store.findApiKeyByHash(hash);
    expect(first?.key.lastUsedAt).toBeNull();
    await store.touchApiKey({ id: key.id, now: T0 + 5, minIntervalMs: 1000 });
    const second = await store.findApiKeyByHash(hash);
    expect(second?.key.lastUsedAt).toBe(T0 + 5);
    // What was handed out before the write is unchanged.
    expect(first?.key.lastUsedAt).toBeNull();
    if (!second) throw new Error('not found');
    expect(() => {
      second.key.revokedAt = 1;
    }).toThrow(TypeError);
    expect(() => {
      second.project.suspended = true;
    }).toThrow(TypeError);
    expect(await store.findApiKeyByHash(hash)).toMatchObject({
      key: { revokedAt: null },
      project: { suspended: false },
    });
  });
});

describe('notification reads', () => {
  async function read(store: Store, project: ProjectRecord, id: string) {
    const found = await store.getNotification({ projectId: project.id, id });
    if (!found) throw new Error(`${id} not found`);
    return found;
  }

  it('see a change written by any connection, even in plain SQL, at the next read', async () => {
    const store = open();
    const { project } = await seed(store);
    const sent = created(await send(store, project));
    const id = sent.notification.id;
    expect(await read(store, project, id)).toEqual(sent);
    const other = raw();
    try {
      other
        .prepare("UPDATE attempts SET status = 'delivered', final = 1, delivered_at = ? WHERE notification_id = ?")
        .run(T0 + 5, id);
      expect((await read(store, project, id)).attempts[0]).toMatchObject({
        status: 'delivered',
        final: true,
        deliveredAt: T0 + 5,
      });
      // Another store on the file is another connection too: its receipts are seen at once.
      const second = open();
      await second.applyReceipts({
        browserId: sent.attempts[0]!.browserId,
        receipts: [{ type: 'clicked', attemptId: sent.attempts[0]!.id, at: T0 + 6 }],
        now: T0 + 6,
      });
      expect((await read(store, project, id)).attempts[0]!.clickedAt).toBe(T0 + 6);
    } finally {
      other.close();
    }
  });

  it('hand out one unchanging object while nothing changed, and never let a caller change it', async () => {
    const store = open();
    const { project } = await seed(store);
    const id = created(await send(store, project)).notification.id;
    const first = await read(store, project, id);
    expect(await read(store, project, id)).toBe(first);
    expect(() => {
      (first.attempts[0] as { status: string }).status = 'delivered';
    }).toThrow(TypeError);
    expect(() => {
      (first.notification.data as Record<string, unknown>).n = 2;
    }).toThrow(TypeError);
    expect((await read(store, project, id)).attempts[0]!.status).toBe('accepted');
    // A commit of another connection, even one that changes something else, drops what was kept.
    const other = raw();
    try {
      other.prepare('UPDATE accounts SET email = ?').run('b@example.com');
    } finally {
      other.close();
    }
    const reread = await read(store, project, id);
    expect(reread).not.toBe(first);
    expect(reread).toEqual(first);
  });

  it('keep at most notificationCacheSize notifications, and none with 0', async () => {
    const store = open(undefined, 2);
    const { project } = await seed(store);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(created(await send(store, project)).notification.id);
    const [a, b, c] = ids as [string, string, string];
    const firstA = await read(store, project, a);
    expect(await read(store, project, a)).toBe(firstA);
    const firstB = await read(store, project, b);
    await read(store, project, c); // the third kept pushes the first out
    expect(await read(store, project, b)).toBe(firstB);
    const againA = await read(store, project, a);
    expect(againA).not.toBe(firstA);
    expect(againA).toEqual(firstA);

    const uncached = open(undefined, 0);
    const first = await read(uncached, project, a);
    expect(await read(uncached, project, a)).not.toBe(first);
    expect(await read(uncached, project, a)).toEqual(first);
  });

  it('refuse a bad notificationCacheSize at construction', () => {
    expect(() => createSqliteStore({ path: ':memory:', notificationCacheSize: -1 })).toThrow(TypeError);
    expect(() => createSqliteStore({ path: ':memory:', notificationCacheSize: 1.5 })).toThrow(TypeError);
  });
});

describe('group commit of sends', () => {
  it('records sends started together, each with its own sequence, committed before they resolve', async () => {
    const store = open();
    const { project } = await seed(store);
    const results = await Promise.all(Array.from({ length: 20 }, () => send(store, project)));
    expect(results.map((result) => created(result).attempts[0]!.seq)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const other = raw();
    try {
      // Another connection sees every resolved send: nothing resolves before its commit.
      expect(other.prepare('SELECT count(*) FROM notifications').pluck().get()).toBe(20);
      expect(other.prepare('SELECT count(*) FROM attempts').pluck().get()).toBe(20);
      expect(other.prepare('SELECT notifications, attempts FROM usage_days').get()).toEqual({
        notifications: 20,
        attempts: 20,
      });
    } finally {
      other.close();
    }
  });

  it('counts sequences and usage of a mixed group as if its sends had run one by one', async () => {
    const store = open();
    const { project, browser: seeded } = await seed(store); // a browser of recipient r
    const other = await seedKey(store, `sk_live_${'D'.repeat(32)}`, T0);
    const browsers = [];
    for (const [projectId, recipient] of [
      [project.id, 'r'],
      [project.id, 's'],
      [other.project.id, 'r'],
    ] as const) {
      browsers.push(
        await store.registerBrowser({
          id: newId('brw', T0),
          projectId,
          recipient,
          secretHash: hashSecret('bs_x'),
          now: T0,
        }),
      );
    }
    const day2 = T0 + 86_400_000;
    const sendTo = (projectId: string, recipient: string, createdAt: number, mode: 'live' | 'test' = 'live') =>
      store.createNotification({
        notification: {
          id: newId('ntf', createdAt),
          projectId,
          mode,
          recipient,
          title: 'Hello',
          body: null,
          url: null,
          icon: null,
          tag: null,
          data: null,
          ttl: 60,
          createdAt,
          expiresAt: createdAt + 60_000,
          apiKeyId: null,
          requestId: null,
          idempotencyKey: null,
        },
        newAttemptId: () => newId('att', createdAt),
        idempotency: null,
        render: () => ({ status: 201, body: '{}' }),
      });
    // One group: recipient r of the first project has two browsers, s one, r of the other project one.
    const results = await Promise.all([
      sendTo(project.id, 'r', T0),
      sendTo(project.id, 's', T0),
      sendTo(other.project.id, 'r', T0),
      sendTo(project.id, 'r', day2),
      sendTo(project.id, 'r', T0, 'test'),
      sendTo(project.id, 'nobody', T0),
      sendTo(other.project.id, 'r', day2),
    ]);
    expect(results.map((result) => result.kind)).toEqual([
      'created',
      'created',
      'created',
      'created',
      'created',
      'no-connected-browser',
      'created',
    ]);
    const raw1 = raw();
    try {
      const seqs = raw1.prepare('SELECT browser_id, seq FROM attempts ORDER BY browser_id, seq').all() as {
        browser_id: string;
        seq: number;
      }[];
      const byBrowser = new Map<string, number[]>();
      for (const { browser_id, seq } of seqs) byBrowser.set(browser_id, [...(byBrowser.get(browser_id) ?? []), seq]);
      const [firstR, s, otherR] = browsers;
      expect(byBrowser.get(seeded.id)).toEqual([1, 2, 3]);
      expect(byBrowser.get(firstR!.id)).toEqual([1, 2, 3]);
      expect(byBrowser.get(s!.id)).toEqual([1]);
      expect(byBrowser.get(otherR!.id)).toEqual([1, 2]);
      for (const [browserId, list] of byBrowser) {
        expect(raw1.prepare('SELECT last_seq FROM browsers WHERE id = ?').pluck().get(browserId)).toBe(list.at(-1));
      }
      expect(
        raw1.prepare('SELECT project_id, day, notifications, attempts FROM usage_days ORDER BY project_id, day').all(),
      ).toEqual(
        [
          { project_id: project.id, day: '2026-01-01', notifications: 2, attempts: 3 },
          { project_id: project.id, day: '2026-01-02', notifications: 1, attempts: 2 },
          { project_id: other.project.id, day: '2026-01-01', notifications: 1, attempts: 1 },
          { project_id: other.project.id, day: '2026-01-02', notifications: 1, attempts: 1 },
        ].sort((a, b) => (a.project_id + a.day).localeCompare(b.project_id + b.day)),
      );
    } finally {
      raw1.close();
    }
  });

  it('rolls a failing send back alone: the others of its group are recorded', async () => {
    const store = open();
    const { project, browser } = await seed(store);
    const taken = newId('att', T0);
    const outcomes = await Promise.allSettled([
      send(store, project),
      send(store, project, taken),
      // The same attempt id again: it fails after its notification and sequence step were written.
      send(store, project, taken),
      send(store, project),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const other = raw();
    try {
      expect(other.prepare('SELECT count(*) FROM notifications').pluck().get()).toBe(3);
      // The failed send's sequence step and usage were rolled back with it.
      expect(other.prepare('SELECT seq FROM attempts ORDER BY seq').pluck().all()).toEqual([1, 2, 3]);
      expect(other.prepare('SELECT last_seq FROM browsers WHERE id = ?').pluck().get(browser.id)).toBe(3);
      expect(other.prepare('SELECT notifications FROM usage_days').pluck().get()).toBe(3);
    } finally {
      other.close();
    }
  });

  it('fails every send of a group whose transaction cannot start, and records none of them', async () => {
    const store = open(50);
    const { project } = await seed(store);
    const other = raw();
    try {
      other.exec('BEGIN IMMEDIATE');
      const outcomes = await Promise.allSettled([send(store, project), send(store, project)]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
      other.exec('ROLLBACK');
      expect(other.prepare('SELECT count(*) FROM notifications').pluck().get()).toBe(0);
      // The store goes on: the next send is recorded.
      expect(created(await send(store, project)).attempts[0]!.seq).toBe(1);
    } finally {
      other.close();
    }
  });

  it('commits queued sends when the store closes', async () => {
    const store = createSqliteStore({ path: file.path });
    const { project } = await seed(store);
    const pending = send(store, project);
    await store.close();
    const sent = created(await pending);
    const reopened = open();
    expect(
      (await reopened.getNotification({ projectId: project.id, id: sent.notification.id }))?.attempts,
    ).toHaveLength(1);
  });
});

describe('sequence numbers', () => {
  type Op =
    | { kind: 'send'; store: number; recipient: number; mode: 'live' | 'test' }
    | { kind: 'fail'; store: number; recipient: number }
    | { kind: 'register'; store: number; recipient: number }
    | { kind: 'disconnect'; store: number; pick: number };
  const store = fc.nat(1);
  const recipient = fc.nat(2);
  const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
    {
      arbitrary: fc.record({ kind: fc.constant('send'), store, recipient, mode: fc.constantFrom('live', 'test') }),
      weight: 6,
    },
    { arbitrary: fc.record({ kind: fc.constant('fail'), store, recipient }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('register'), store, recipient }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('disconnect'), store, pick: fc.nat(50) }), weight: 1 },
  );

  // Each browser's attempts are numbered from its last_seq inside the send's write transaction,
  // so they must run 1..last_seq without a repeat or a gap, whatever groups, rollbacks and
  // connections the sends went through. No index refuses a repeat since schema step 16: this does.
  it('run 1..last_seq for every browser when two connections interleave sends, failures, registrations and disconnects', async () => {
    const stores = [open(), open()];
    const { project } = await seed(stores[0]!);
    // An attempt id already taken: a send that reuses it fails, and its group is run again with
    // each send in a savepoint of its own.
    const taken = newId('att', T0);
    created(await send(stores[0]!, project, taken));
    const sendTo = (on: Store, to: string, mode: 'live' | 'test', attemptId?: string) =>
      sendLive(on, project.id, T0, {
        recipient: to,
        mode,
        ...(attemptId === undefined ? {} : { attemptId }),
        render: () => ({ status: 201, body: '{}' }),
      });
    const check = raw();
    const seqsOf = check.prepare('SELECT seq FROM attempts WHERE browser_id = ? ORDER BY seq').pluck();
    const lastSeqOf = check.prepare('SELECT last_seq FROM browsers WHERE id = ?').pluck();
    let round = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(opArbitrary, { minLength: 1, maxLength: 12 }), { maxLength: 6 }),
          async (batches) => {
            // Recipients and browsers of this run alone, so that a shrunk run starts from nothing.
            round++;
            const recipients = [0, 1, 2].map((n) => `r${round}-${n}`);
            const browserIds: string[] = [];
            const run = async (op: Op): Promise<unknown> => {
              const on = stores[op.store]!;
              switch (op.kind) {
                case 'send':
                  return sendTo(on, recipients[op.recipient]!, op.mode);
                case 'fail':
                  return sendTo(on, recipients[op.recipient]!, 'live', taken);
                case 'register': {
                  const id = newId('brw', T0);
                  browserIds.push(id);
                  return on.registerBrowser({
                    id,
                    projectId: project.id,
                    recipient: recipients[op.recipient]!,
                    secretHash: hashSecret('bs_secret'),
                    now: T0,
                  });
                }
                case 'disconnect': {
                  const browserId = browserIds[op.pick % Math.max(1, browserIds.length)];
                  if (browserId === undefined) return;
                  return on.disconnectBrowser({ browserId, reason: 'browser_disconnected', now: T0 });
                }
              }
            };
            // The operations of a batch start together: each store groups its own sends of the turn.
            for (const batch of batches) await Promise.allSettled(batch.map(run));
            for (const id of browserIds) {
              const lastSeq = lastSeqOf.get(id) as number;
              expect(seqsOf.all(id)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
            }
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      check.close();
    }
  });
});
