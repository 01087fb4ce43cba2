import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, refusal } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

describe('admin views: recipients and browsers', () => {
  it('lists a project’s recipients by id, by pages, with their connected browsers', async () => {
    h = await createHarness();
    await h.tidings.createConnectToken({ projectId: h.project.id, recipient: 'carol' });
    await h.connectBrowser('bob');
    await h.connectBrowser('bob');
    await h.connectBrowser('Alice');
    const elsewhere = await h.tidings.admin.createProject({ accountId: h.account.id, name: 'Other' });
    await h.connectBrowser('dave', elsewhere.id);

    const all = await h.tidings.admin.listRecipients(h.project.id);
    expect(all.map((item) => [item.id, item.connected_browsers])).toEqual([
      ['Alice', 1],
      ['bob', 2],
      ['carol', 0],
    ]);
    expect(all[0]).toEqual({
      object: 'recipient_summary',
      id: 'Alice',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      connected_browsers: 1,
    });
    expect(await h.tidings.admin.listRecipients(h.project.id, { limit: 2 })).toEqual(all.slice(0, 2));
    expect(await h.tidings.admin.listRecipients(h.project.id, { after: 'bob', limit: 2 })).toEqual(all.slice(2));
    expect((await h.tidings.admin.listRecipients(elsewhere.id)).map((item) => item.id)).toEqual(['dave']);

    const refused = (options: { after?: string; limit?: number }) =>
      refusal(h.tidings.admin.listRecipients(h.project.id, options));
    expect(await refused({ after: 'no spaces' })).toBe('VALIDATION_FAILED');
    expect(await refused({ after: '' })).toBe('VALIDATION_FAILED');
    expect(await refused({ limit: 0 })).toBe('VALIDATION_FAILED');
    expect(await refused({ limit: 101 })).toBe('VALIDATION_FAILED');
    expect(await refusal(h.tidings.admin.listRecipients('proj_unknown'))).toBe('NOT_FOUND');
  });

  it('reads a recipient with its browsers (user agent, path) and inbox counts', async () => {
    h = await createHarness();
    const recipient = 'user:42@example.com';
    const token = await h.tidings.createConnectToken({ projectId: h.project.id, recipient });
    const registered = await h.request(`/v1/connect/${token.token}`, {
      method: 'POST',
      headers: { 'User-Agent': 'Mozilla/5.0 (Macintosh) Safari/605.1.15' },
    });
    const { browser_id: browserId } = (await registered.json()) as { browser_id: string };
    h.clock.advance(1000);
    await h.send({ recipient, title: 'Hello' });

    const detail = await h.tidings.admin.getRecipient(h.project.id, recipient);
    expect(detail).toMatchObject({ object: 'recipient', id: recipient, project_id: h.project.id });
    expect(detail.inbox).toMatchObject({ total: 1, unread: 1, unseen: 1 });
    expect(detail.has_more_browsers).toBe(false);
    expect(detail.browsers).toEqual([
      expect.objectContaining({
        object: 'browser',
        id: browserId,
        recipient,
        connected: true,
        connected_by: 'poll',
        stream_open: false,
        push_service: null,
        user_agent: 'Mozilla/5.0 (Macintosh) Safari/605.1.15',
      }),
    ]);
    expect(await refusal(h.tidings.admin.getRecipient(h.project.id, 'nobody'))).toBe('NOT_FOUND');
    expect(await refusal(h.tidings.admin.getRecipient(h.project.id, 'no spaces'))).toBe('VALIDATION_FAILED');
  });

  it('reads a browser with its attempts, its push service as an origin only, and never another project’s', async () => {
    h = await createHarness();
    const { browserId } = await h.connectBrowser('alice');
    const other = await h.connectBrowser('alice');
    const sent = (await (await h.send({ recipient: 'alice', title: 'One' })).json()) as { id: string };
    const saved = await h.store.putPushSubscription({
      browserId,
      endpoint: 'https://fcm.googleapis.com/fcm/send/secret-token-path',
      p256dh: `B${'A'.repeat(86)}`,
      auth: 'A'.repeat(22),
      expiresAt: null,
      now: h.clock.now(),
    });
    expect(saved.kind).toBe('saved');

    const detail = await h.tidings.admin.getBrowser(h.project.id, browserId);
    expect(detail.browser).toMatchObject({ id: browserId, push_service: 'https://fcm.googleapis.com' });
    expect(JSON.stringify(detail)).not.toContain('secret-token-path');
    expect(detail.attempts).toEqual([
      {
        notification: expect.objectContaining({ id: sent.id, title: 'One', mode: 'live' }),
        attempt: expect.objectContaining({ browser_id: browserId, status: 'accepted' }),
      },
    ]);
    expect(detail.next_before).toBeNull();
    expect((await h.tidings.admin.getBrowser(h.project.id, other.browserId)).attempts).toHaveLength(1);

    const elsewhere = await h.tidings.admin.createProject({ accountId: h.account.id, name: 'Other' });
    expect(await refusal(h.tidings.admin.getBrowser(elsewhere.id, browserId))).toBe('NOT_FOUND');
    expect(await refusal(h.tidings.admin.getRecipient(elsewhere.id, 'alice'))).toBe('NOT_FOUND');
    expect(await refusal(h.tidings.admin.getBrowser(h.project.id, 'brw_nope'))).toBe('NOT_FOUND');
    expect(await refusal(h.tidings.admin.getBrowser(h.project.id, browserId, { before: 'x' }))).toBe(
      'VALIDATION_FAILED',
    );
  });
});
