import { newId, type Store } from '@tidings/core';
import type { CreateNotificationResult } from '@tidings/core/store';
import { seedBrowser, seedProject, send as sendFixture, T0 } from '@tidings/core/testing';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from './postgres-store.js';
import { createWatchedStore, explainPlans, testDatabaseUrl, type WatchedStore } from './test-support/test-database.js';

/** The group commit of sends, seen through the statements that reach the server. */
describe('PostgreSQL store: sends recorded together', () => {
  let subject: WatchedStore;
  let schema: string;
  let pool: pg.Pool;
  let store: Store;
  /** The statements run, in order: a prepared one by its name, another by its text. */
  let statements: string[];

  beforeEach(async () => {
    statements = [];
    subject = await createWatchedStore((statement) => statements.push(statement));
    ({ schema, pool, store } = subject);
  });
  afterEach(() => subject.close());

  /** A project with one connected browser of `user-1`. */
  async function seed() {
    const project = await seedProject(store);
    return { projectId: project.id, browser: await seedBrowser(store, project.id, 'user-1') };
  }

  /** The index-th send to `user-1`, titled and tagged with its index so it can be told apart. */
  const send = (projectId: string, index: number, extra: { title?: string; key?: string } = {}) =>
    sendFixture(store, {
      projectId,
      recipient: 'user-1',
      now: T0 + index,
      title: extra.title ?? `Hi ${index}`,
      data: { index },
      idempotencyKey: extra.key ?? null,
    });

  const seqsOf = (results: CreateNotificationResult[]) =>
    results
      .flatMap((result) => (result.kind === 'created' ? result.created.attempts.map((attempt) => attempt.seq) : []))
      .sort((a, b) => a - b);

  it('records each send’s key, request id and Idempotency-Key when sends are recorded together', async () => {
    const { projectId } = await seed();
    statements = [];
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        sendFixture(store, {
          projectId,
          recipient: 'user-1',
          now: T0 + index,
          apiKeyId: `key_${index}`,
          requestId: `req_${index}`,
          idempotencyKey: index % 2 ? `idem-${index}` : null,
        }),
      ),
    );
    expect(statements.filter(isGroupRecord).length).toBeGreaterThan(0);
    for (const [index, result] of results.entries()) {
      if (result.kind !== 'created') throw new Error(result.kind);
      const found = await store.getNotification({ projectId, id: result.created.notification.id });
      expect(found?.notification).toMatchObject({
        apiKeyId: `key_${index}`,
        requestId: `req_${index}`,
        idempotencyKey: index % 2 ? `idem-${index}` : null,
      });
    }
  });

  it('records sends started together in fewer statements than sends, numbered without a gap', async () => {
    const { projectId, browser } = await seed();
    statements = [];
    const results = await Promise.all(Array.from({ length: 40 }, (_, index) => send(projectId, index)));
    expect(seqsOf(results)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    // The recording statements, of a group and of a send alone, told apart by their lists. A
    // group reads its recipients' browsers in its recording statement: no read of its own.
    const groups = statements.filter(isGroupRecord).length;
    const alone = statements.filter((text) => text.includes('WITH ORDINALITY AS p(attempt_id, browser_id')).length;
    expect(groups).toBeGreaterThan(0);
    expect(groups + alone).toBeLessThan(20);
    expect(statements.filter(isGroupBrowserRead)).toEqual([]);
    const deliveries = await store.listDeliveries({ browserId: browser.id, now: T0 });
    expect(deliveries.map((delivery) => delivery.seq)).toEqual(seqsOf(results));
    // Each attempt reads back with its own notification and the number its send was told.
    const told = new Map(
      results.flatMap((result) =>
        result.kind === 'created' ? result.created.attempts.map((attempt) => [attempt.id, attempt.seq] as const) : [],
      ),
    );
    for (const delivery of deliveries) {
      expect(delivery.seq).toBe(told.get(delivery.attemptId));
      expect(delivery.title).toBe(`Hi ${(delivery.data as { index: number }).index}`);
    }
  });

  it('records a send alone with its own prepared statements, not the group statement', async () => {
    const { projectId, browser } = await seed();
    statements = [];
    const first = await send(projectId, 0);
    expect(statements).toContain('send_browsers');
    expect(statements.filter(isGroupRecord)).toEqual([]);
    statements = [];
    const second = await send(projectId, 1, { key: 'k' });
    expect(statements).toContain('send_claim');
    expect(statements.filter(isGroupRecord)).toEqual([]);
    expect(seqsOf([first, second])).toEqual([1, 2]);
    const deliveries = await store.listDeliveries({ browserId: browser.id, now: T0 });
    expect(deliveries.map((delivery) => delivery.title)).toEqual(['Hi 0', 'Hi 1']);
  });

  it('records a group in two statements when a recipient has more browsers than its sends brought ids for', async () => {
    const { projectId, browser } = await seed();
    const browsers = [browser];
    for (let i = 0; i < 4; i++) browsers.push(await seedBrowser(store, projectId, 'user-1'));
    const round = async (from: number) => {
      statements = [];
      const results = await Promise.all(Array.from({ length: 10 }, (_, index) => send(projectId, from + index)));
      return { results, statements: [...statements] };
    };
    const expectNumbered = async (results: CreateNotificationResult[], sent: number[]) => {
      for (const result of results) {
        expect(result.kind === 'created' && result.created.attempts.length).toBe(browsers.length);
      }
      for (const [i, one] of browsers.entries()) {
        const seqs = (await store.listDeliveries({ browserId: one.id, now: T0 })).map((delivery) => delivery.seq);
        expect(seqs).toEqual(Array.from({ length: sent[i]! }, (_, index) => index + 1));
      }
    };

    // Not seen yet, the recipient's sends bring 16 ids each: enough for its 5 browsers.
    const first = await round(0);
    expect(first.statements.filter(isGroupRecord).length).toBeGreaterThan(0);
    expect(first.statements.filter(isGroupBrowserRead)).toEqual([]);
    await expectNumbered(first.results, [10, 10, 10, 10, 10]);

    // Seen with 5, its sends bring 7 ids; three more connect, and 8 browsers are more than 7.
    for (let i = 0; i < 3; i++) browsers.push(await seedBrowser(store, projectId, 'user-1'));
    const second = await round(10);
    expect(second.statements.filter(isGroupBrowserRead).length).toBeGreaterThan(0);
    await expectNumbered(second.results, [20, 20, 20, 20, 20, 10, 10, 10]);

    // Seen with 8 now: one statement a group again.
    const third = await round(20);
    expect(third.statements.filter(isGroupBrowserRead)).toEqual([]);
    await expectNumbered(third.results, [30, 30, 30, 30, 30, 20, 20, 20]);
    expect(await store.getUsage({ projectId, fromDay: '2026-01-01', toDay: '2026-01-01' })).toEqual([
      { day: '2026-01-01', notifications: 30, attempts: 10 * 5 + 10 * 8 + 10 * 8 },
    ]);
  });

  it('records test sends of a group final at once, numbered with the live ones, and counts only the live', async () => {
    const { projectId, browser } = await seed();
    statements = [];
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        sendFixture(store, {
          projectId,
          recipient: 'user-1',
          now: T0 + index,
          title: `Hi ${index}`,
          mode: index % 2 ? 'test' : 'live',
        }),
      ),
    );
    expect(statements.filter(isGroupRecord).length).toBeGreaterThan(0);
    expect(seqsOf(results)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const [index, result] of results.entries()) {
      expect(result.kind === 'created' && result.created.attempts[0]!.final).toBe(index % 2 === 1);
    }
    // Only the live attempts wait for the browser; usage counts the live sends alone.
    const pending = await store.listDeliveries({ browserId: browser.id, now: T0 });
    expect(pending.map((delivery) => delivery.title)).toEqual(['Hi 0', 'Hi 2', 'Hi 4']);
    expect(await store.getUsage({ projectId, fromDay: '2026-01-01', toDay: '2026-01-01' })).toEqual([
      { day: '2026-01-01', notifications: 3, attempts: 3 },
    ]);
  });

  it('fails only the send the server refuses when its group rolls back, keys included', async () => {
    const { projectId } = await seed();
    statements = [];
    // PostgreSQL's text cannot hold U+0000: the group's statement fails, and each send runs again alone.
    const calls = Array.from({ length: 12 }, (_, index) =>
      send(projectId, index, {
        title: index === 5 ? 'bad \u0000 title' : undefined,
        key: index % 2 ? `k${index}` : undefined,
      }),
    );
    const settled = await Promise.allSettled(calls);
    expect(settled[5]!.status).toBe('rejected');
    const results = settled.flatMap((one) => (one.status === 'fulfilled' ? [one.value] : []));
    expect(results.map((result) => result.kind)).toEqual(Array(11).fill('created'));
    expect(seqsOf(results)).toEqual(Array.from({ length: 11 }, (_, index) => index + 1));
    expect(statements).toContain('group_claim');
    // The keys of the group that rolled back were claimed again by their sends alone, and hold their results.
    const replay = await send(projectId, 1, { key: 'k1' });
    const first = results[1]!;
    expect(replay).toEqual({ kind: 'replay', response: first.kind === 'created' && first.response });
    expect(await store.getUsage({ projectId, fromDay: '2026-01-01', toDay: '2026-01-01' })).toEqual([
      { day: '2026-01-01', notifications: 11, attempts: 11 },
    ]);
  });

  it('fails alone a send whose answer cannot be rendered, and keeps nothing under its key', async () => {
    const { projectId } = await seed();
    statements = [];
    const calls = Array.from({ length: 6 }, (_, index) => send(projectId, index, { key: `r${index}` }));
    const broken = store.createNotification({
      notification: {
        id: newId('ntf'),
        projectId,
        mode: 'live',
        recipient: 'user-1',
        title: 'Broken',
        body: null,
        url: null,
        icon: null,
        tag: null,
        data: null,
        ttl: 60,
        createdAt: T0,
        expiresAt: T0 + 60_000,
        apiKeyId: null,
        requestId: null,
        idempotencyKey: null,
      },
      newAttemptId: () => newId('att'),
      idempotency: { key: 'broken', fingerprint: 'fp', expiresAt: T0 + 86_400_000 },
      render: () => {
        throw new Error('cannot render');
      },
    });
    const [settled, results] = await Promise.all([Promise.allSettled([broken]), Promise.all(calls)]);
    expect(settled[0]).toMatchObject({ status: 'rejected', reason: new Error('cannot render') });
    expect(results.map((result) => result.kind)).toEqual(Array(6).fill('created'));
    expect(statements).toContain('group_claim');
    expect(await store.findIdempotentResponse({ projectId, key: 'broken', fingerprint: 'fp', now: T0 })).toEqual({
      kind: 'none',
    });
  });

  it('marks attempts sent without scanning the whole table once it has grown', async () => {
    const { projectId } = await seed();
    const plans: string[] = [];
    // Set up before the pool lends the client, so that no statement of the store waits behind it.
    const explained = new pg.Pool({
      connectionString: testDatabaseUrl,
      max: 1,
      onConnect: (client) => explainPlans(client, plans),
    });
    const watched = await createPostgresStore({ pool: explained, schema });
    try {
      // Runs while the table is small: a plan made now and kept would scan the whole table later.
      for (let round = 0; round < 8; round += 1) {
        const result = await send(projectId, round);
        if (result.kind !== 'created') throw new Error(result.kind);
        await watched.markAttemptsSent({ attemptIds: [result.created.attempts[0]!.id], now: T0, via: 'stream' });
      }
      await pool.query(
        `INSERT INTO ${schema}.attempts (id, notification_id, position, browser_id, seq, status, final, accepted_at, expires_at)
         SELECT 'att_fill_' || i, 'ntf_fill_' || i, 1, 'brw_fill', i, 'delivered', true, 0, 0 FROM generate_series(1, 20000) i`,
      );
      const result = await send(projectId, 100);
      if (result.kind !== 'created') throw new Error(result.kind);
      plans.length = 0;
      await watched.markAttemptsSent({ attemptIds: [result.created.attempts[0]!.id], now: T0, via: 'stream' });
      const marking = plans.filter((plan) => plan.includes("SET status = 'sent'"));
      expect(marking).toHaveLength(1);
      expect(marking[0]).toMatch(/Index Scan using attempts_pkey on attempts a\b/);
      expect(marking[0]).not.toMatch(/Seq Scan on attempts/);
    } finally {
      await watched.close();
      await explained.end();
    }
  });
});

/**
 * The recording statement of a group: with its ids made beforehand (by its text while the
 * browsers are few, by its name once it keeps its plan), or after a read of the browsers.
 */
function isGroupRecord(text: string): boolean {
  return (
    text === 'group_send' ||
    text.includes('AS i(ord, position, attempt_id)') ||
    text.includes('AS p(attempt_id, notification_id, browser_id')
  );
}

/** The read of a group's browsers before its recording statement, when its ids ran short. */
function isGroupBrowserRead(text: string): boolean {
  return text.includes('SELECT b.project_id, b.recipient, b.id');
}
