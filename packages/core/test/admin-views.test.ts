import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness, refusal } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

describe('admin views: what the dashboard pages read through tidings.admin', () => {
  it("lists a project's sends newest first as API objects, by pages and filters, and one send", async () => {
    h = await createHarness();
    await h.connectBrowser('alice');
    await h.connectBrowser('bob');
    const ids: string[] = [];
    for (const [i, recipient] of ['alice', 'bob', 'alice'].entries()) {
      h.clock.advance(1000);
      const sent = await h.send({ recipient, title: `n${i}` });
      ids.push(((await sent.json()) as { id: string }).id);
    }
    const all = await h.tidings.admin.listNotifications(h.project.id);
    expect(all.map((item) => item.id)).toEqual([...ids].reverse());
    expect(all[0]).toMatchObject({ object: 'notification', recipient: 'alice', title: 'n2', status: 'pending' });
    expect(all[0]?.attempts).toHaveLength(1);
    const first = await h.tidings.admin.listNotifications(h.project.id, { limit: 2 });
    expect(first.map((item) => item.id)).toEqual([ids[2], ids[1]]);
    const next = await h.tidings.admin.listNotifications(h.project.id, { limit: 2, before: ids[1]! });
    expect(next.map((item) => item.id)).toEqual([ids[0]]);
    const bob = await h.tidings.admin.listNotifications(h.project.id, { recipient: 'bob' });
    expect(bob.map((item) => item.id)).toEqual([ids[1]]);
    expect(await h.tidings.admin.listNotifications(h.project.id, { mode: 'test' })).toEqual([]);
    expect(await h.tidings.admin.getNotification(h.project.id, ids[0]!)).toEqual(all[2]);
  });

  it('refuses bad filters with VALIDATION_FAILED, and unknown or foreign ids with NOT_FOUND', async () => {
    h = await createHarness();
    const { admin } = h.tidings;
    expect(await refusal(admin.listNotifications(h.project.id, { limit: 0 }))).toBe('VALIDATION_FAILED');
    expect(await refusal(admin.listNotifications(h.project.id, { limit: 101 }))).toBe('VALIDATION_FAILED');
    expect(await refusal(admin.listNotifications(h.project.id, { before: 'nope' }))).toBe('VALIDATION_FAILED');
    expect(await refusal(admin.listNotifications(h.project.id, { mode: 'x' as never }))).toBe('VALIDATION_FAILED');
    expect(await refusal(admin.listNotifications('proj_unknown'))).toBe('NOT_FOUND');
    expect(await refusal(admin.getNotification(h.project.id, 'not-an-id'))).toBe('NOT_FOUND');
    const other = await admin.createProject({ accountId: h.account.id, name: 'Other' });
    await h.connectBrowser('alice');
    const sent = (await (await h.send({ recipient: 'alice', title: 'x' })).json()) as { id: string };
    expect(await refusal(admin.getNotification(other.id, sent.id))).toBe('NOT_FOUND');
    expect(await refusal(admin.getKey('key_unknown'))).toBe('NOT_FOUND');
  });

  it('reads one send with the request that made it: key without its secret, request id, Idempotency-Key', async () => {
    h = await createHarness();
    const { admin } = h.tidings;
    await h.connectBrowser('alice');
    const keyed = await h.send({ recipient: 'alice', title: 'keyed' }, h.liveKey, { 'Idempotency-Key': 'k-1' });
    const keyedBody = (await keyed.json()) as Record<string, unknown>;
    const plain = await h.send({ recipient: 'alice', title: 'plain' }, h.testKey);
    const plainId = ((await plain.json()) as { id: string }).id;
    // The public answer keeps its shape: nothing of the request in it.
    for (const field of ['api_key_id', 'request_id', 'idempotency_key', 'key'])
      expect(keyedBody).not.toHaveProperty(field);

    const detail = await admin.getNotificationDetail(h.project.id, keyedBody.id as string);
    expect(detail.notification).toEqual(await admin.getNotification(h.project.id, keyedBody.id as string));
    const liveKey = (await admin.listKeys(h.project.id)).find((key) => key.mode === 'live')!;
    expect(detail.request).toEqual({
      recorded: true,
      key_id: liveKey.id,
      key: { ...liveKey, last_used_at: detail.request.key?.last_used_at },
      request_id: keyed.headers.get('Request-Id'),
      idempotency_key: 'k-1',
    });
    expect(detail.request.key).not.toHaveProperty('key');
    const other = await admin.getNotificationDetail(h.project.id, plainId);
    expect(other.request).toMatchObject({ recorded: true, request_id: plain.headers.get('Request-Id') });
    expect(other.request.idempotency_key).toBeNull();
    expect(other.request.key?.mode).toBe('test');

    const foreign = await admin.createProject({ accountId: h.account.id, name: 'Other' });
    expect(await refusal(admin.getNotificationDetail(foreign.id, plainId))).toBe('NOT_FOUND');
    expect(await refusal(admin.getNotificationDetail(h.project.id, 'nope'))).toBe('NOT_FOUND');
  });

  it('breaks usage down per day of a range, live and test, every day listed; refuses a bad range', async () => {
    h = await createHarness();
    const { admin } = h.tidings;
    await h.connectBrowser('alice');
    await h.send({ recipient: 'alice', title: 'live' });
    await h.send({ recipient: 'alice', title: 'test' }, h.testKey);
    const usage = await admin.getUsageBreakdown(h.project.id, { from: '2026-05-30', to: '2026-06-02' });
    expect(usage.days.map((day) => day.date)).toEqual(['2026-05-30', '2026-05-31', '2026-06-01', '2026-06-02']);
    expect(usage.days[2]).toEqual({
      date: '2026-06-01',
      live: { notifications: 1, attempts: 1, sent: 0, delivered: 0 },
      test: { notifications: 1, attempts: 1, sent: 0, delivered: 0 },
    });
    expect(usage.total).toEqual({ notifications: 1, attempts: 1, sent: 0, delivered: 0, test_notifications: 1 });
    for (const range of [
      { from: '2026-02-30', to: '2026-03-01' },
      { from: '2026-06-01', to: 'tomorrow' },
      { from: '2026-06-02', to: '2026-06-01' },
      { from: '2025-01-01', to: '2026-06-01' },
    ]) {
      expect(await refusal(admin.getUsageBreakdown(h.project.id, range))).toBe('VALIDATION_FAILED');
    }
    // 366 days, both ends included, is the most a range holds.
    const longest = await admin.getUsageBreakdown(h.project.id, { from: '2025-06-01', to: '2026-06-01' });
    expect(longest.days).toHaveLength(366);
    expect(await refusal(admin.getUsageBreakdown(h.project.id, { from: '2025-05-31', to: '2026-06-01' }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await refusal(admin.getUsageBreakdown('proj_unknown', { from: '2026-06-01', to: '2026-06-01' }))).toBe(
      'NOT_FOUND',
    );
  });

  it('lists every project of every account, and one key without its secret', async () => {
    h = await createHarness();
    const { admin } = h.tidings;
    const second = await admin.createAccount({ email: 'second@example.com', verified: true });
    // Oldest first: ids made in one millisecond do not sort by creation.
    h.clock.advance(1000);
    const project = await admin.createProject({ accountId: second.id, name: 'Second' });
    expect((await admin.listAllProjects()).map((p) => p.id)).toEqual([h.project.id, project.id]);
    const created = await admin.createKey({ projectId: project.id, mode: 'live', name: 'ci' });
    const { key: _secret, ...withoutSecret } = created;
    expect(await admin.getKey(created.id)).toEqual(withoutSecret);
  });

  it("tells the instance's settings, and wakes a watcher on each message of its hub", async () => {
    h = await createHarness({
      limits: { perKey: 60, perProject: 300, perAccount: 600 },
      extra: { maxProjectsPerAccount: 3, trustProxy: 1, publicUrl: 'https://notify.example.com' },
    });
    const { settings } = h.tidings.admin;
    expect(settings).toMatchObject({
      maxProjectsPerAccount: 3,
      maxActiveKeysPerProject: 10,
      trustProxy: 1,
      publicUrl: 'https://notify.example.com',
    });
    expect(settings.clock.now()).toBe(h.clock.now());
    let woken = 0;
    const stop = h.tidings.admin.watch(() => {
      woken++;
    });
    await h.connectBrowser('alice');
    await h.send({ recipient: 'alice', title: 'wake' });
    await vi.waitFor(() => expect(woken).toBeGreaterThan(0));
    stop();
    const before = woken;
    // A watcher that stays tells when the next message has gone round.
    let witness = 0;
    h.tidings.admin.watch(() => {
      witness++;
    });
    await h.send({ recipient: 'alice', title: 'after stop' });
    await vi.waitFor(() => expect(witness).toBeGreaterThan(0));
    expect(woken).toBe(before);
  });
});
