import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

async function readAttempts(id: string) {
  const response = await h.request(`/v1/notifications/${id}`, { key: h.testKey });
  return (await response.json()) as {
    status: string;
    attempts: { id: string; status: string; final: boolean; reason: string | null; [k: string]: unknown }[];
  };
}

function postEvents(browser: { browserId: string; secret: string }, events: unknown[], contentType = 'text/plain') {
  return h.request('/v1/events', {
    method: 'POST',
    body: JSON.stringify({ browser_id: browser.browserId, browser_secret: browser.secret, events }),
    headers: { 'Content-Type': contentType },
  });
}

describe('POST /v1/connect-tokens', () => {
  it('mints a reusable token for a recipient, checked like the notification endpoints', async () => {
    const response = await h.request('/v1/connect-tokens', {
      method: 'POST',
      key: h.liveKey,
      json: { recipient: 'user@example.com', ttl_seconds: 600 },
    });
    expect(response.status).toBe(201);
    const token = await response.json();
    expect(token).toMatchObject({ object: 'connect_token', recipient: 'user@example.com' });
    expect(token.token).toMatch(/^ct_[A-Za-z0-9]{32}$/);
    expect(token.expires_at).toBe('2026-06-01T12:10:00.000Z');
    expect(token.connect_url).toBe(`http://tidings.test/v1/connect/${token.token}`);
    expect(response.headers.get('ratelimit-policy')).toBe('"key";q=60;w=60');

    for (let i = 0; i < 2; i++) {
      expect((await h.request(`/v1/connect/${token.token}`, { method: 'POST' })).status).toBe(201);
    }
    h.clock.advance(600_000);
    const expired = await h.request(`/v1/connect/${token.token}`, { method: 'POST' });
    expect(expired.status).toBe(401);
    expect((await expired.json()).code).toBe('UNAUTHORIZED');
  });

  it('refuses a ttl over the maximum and a bad recipient', async () => {
    const tooLong = await h.request('/v1/connect-tokens', {
      method: 'POST',
      key: h.liveKey,
      json: { recipient: 'u', ttl_seconds: 86401 },
    });
    expect(tooLong.status).toBe(400);
    const badRecipient = await h.request('/v1/connect-tokens', {
      method: 'POST',
      key: h.liveKey,
      json: { recipient: 'white space' },
    });
    expect(badRecipient.status).toBe(400);
    expect((await h.request('/v1/connect-tokens', { method: 'POST', json: { recipient: 'u' } })).status).toBe(401);
  });
});

describe('POST /v1/connect/{token} (polling)', () => {
  it('registers a browser, then answers its pending notifications and marks them sent', async () => {
    const browser = await h.connectBrowser('poller');
    const sent = await (await h.send({ recipient: 'poller', title: 'Poll me' })).json();
    const poll = await h.request(`/v1/connect/${browser.token}`, {
      method: 'POST',
      body: JSON.stringify({ browser_id: browser.browserId, browser_secret: browser.secret }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(poll.status).toBe(200);
    const answer = await poll.json();
    expect(answer.notifications).toEqual([
      expect.objectContaining({ attempt_id: sent.attempts[0].id, notification_id: sent.id, title: 'Poll me' }),
    ]);
    expect((await readAttempts(sent.id)).attempts[0]!.status).toBe('sent');
  });

  it('a wrong secret is 401; an unknown token 401; CORS for any origin', async () => {
    const browser = await h.connectBrowser('p');
    const wrong = await h.request(`/v1/connect/${browser.token}`, {
      method: 'POST',
      json: { browser_id: browser.browserId, browser_secret: 'bs_wrongwrongwrongwrongwrongwrongwr' },
    });
    expect(wrong.status).toBe(401);
    const unknown = await h.request('/v1/connect/ct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { method: 'POST' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
    expect(unknown.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe('POST /v1/events', () => {
  it('a delivered receipt makes the attempt delivered and final; displayed/clicked never change status', async () => {
    const browser = await h.connectBrowser('r');
    const sent = await (await h.send({ recipient: 'r', title: 'x' })).json();
    const attemptId = sent.attempts[0].id;
    h.clock.advance(1000);
    const displayed = await postEvents(browser, [{ type: 'displayed', attempt_id: attemptId }]);
    expect(displayed.status).toBe(202);
    expect(await displayed.json()).toMatchObject({ accepted: 1 });
    let read = await readAttempts(sent.id);
    expect(read.attempts[0]).toMatchObject({ status: 'accepted', displayed_at: '2026-06-01T12:00:01.000Z' });

    await postEvents(browser, [{ type: 'delivered', attempt_id: attemptId }], 'application/json');
    await postEvents(browser, [{ type: 'delivered', attempt_id: attemptId }]);
    await postEvents(browser, [{ type: 'clicked', attempt_id: attemptId, at: '2026-06-01T12:00:00.500Z' }]);
    read = await readAttempts(sent.id);
    expect(read.status).toBe('completed');
    // A click proves the browser had the notification by its time: delivery is moved back to it.
    expect(read.attempts[0]).toMatchObject({
      status: 'delivered',
      final: true,
      delivered_at: '2026-06-01T12:00:00.500Z',
      clicked_at: '2026-06-01T12:00:00.500Z',
    });
  });

  it('a receipt for another browser’s attempt is ignored', async () => {
    const mine = await h.connectBrowser('m');
    await h.connectBrowser('other');
    const theirs = await (await h.send({ recipient: 'other', title: 'x' })).json();
    const response = await postEvents(mine, [{ type: 'delivered', attempt_id: theirs.attempts[0].id }]);
    expect(response.status).toBe(202);
    expect((await response.json()).accepted).toBe(0);
    expect((await readAttempts(theirs.id)).attempts[0]!.status).toBe('accepted');
  });

  it('refuses a wrong secret (401), more than 100 events and unknown types (400)', async () => {
    const browser = await h.connectBrowser('v');
    expect((await postEvents({ ...browser, secret: 'bs_nope' }, [{ type: 'delivered', attempt_id: 'a' }])).status).toBe(
      401,
    );
    const many = Array.from({ length: 101 }, () => ({ type: 'delivered', attempt_id: 'att_x' }));
    expect((await postEvents(browser, many)).status).toBe(400);
    expect((await postEvents(browser, [{ type: 'exploded', attempt_id: 'a' }])).status).toBe(400);
  });
});

describe('POST /v1/browsers/{id}/disconnect', () => {
  it('accepts the secret as JSON, as a text/plain JSON body, or bare (sendBeacon); open attempts fail', async () => {
    for (const variant of ['json', 'text-json', 'bare'] as const) {
      const browser = await h.connectBrowser(`d-${variant}`);
      const sent = await (await h.send({ recipient: `d-${variant}`, title: 'x' })).json();
      const body = variant === 'bare' ? browser.secret : JSON.stringify({ browser_secret: browser.secret });
      const response = await h.request(`/v1/browsers/${browser.browserId}/disconnect`, {
        method: 'POST',
        body,
        headers: { 'Content-Type': variant === 'json' ? 'application/json' : 'text/plain;charset=UTF-8' },
      });
      expect(response.status).toBe(204);
      const read = await readAttempts(sent.id);
      expect(read.attempts[0]).toMatchObject({ status: 'failed', final: true, reason: 'browser_disconnected' });
      expect(read.status).toBe('completed');
    }
  });

  it('a wrong secret is 401 and changes nothing', async () => {
    const browser = await h.connectBrowser('w');
    const response = await h.request(`/v1/browsers/${browser.browserId}/disconnect`, {
      method: 'POST',
      json: { browser_secret: 'bs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(response.status).toBe(401);
    expect((await h.send({ recipient: 'w', title: 'still there' })).status).toBe(201);
  });
});

describe('time-driven states', () => {
  it('attempts past their ttl become expired; a browser unseen for 120 s is reaped as stale', async () => {
    const browser = await h.connectBrowser('t');
    const short = await (await h.send({ recipient: 't', title: 'short', ttl: 5 })).json();
    const long = await (await h.send({ recipient: 't', title: 'long' })).json();
    h.clock.advance(5_000);
    await h.tidings.sweep();
    expect((await readAttempts(short.id)).attempts[0]).toMatchObject({ status: 'expired', final: true });
    expect((await readAttempts(long.id)).attempts[0]!.status).toBe('accepted');

    h.clock.advance(115_000);
    await h.tidings.sweep();
    expect((await readAttempts(long.id)).attempts[0]!.status).toBe('accepted');
    h.clock.advance(1);
    await h.tidings.sweep();
    expect((await readAttempts(long.id)).attempts[0]).toMatchObject({ status: 'failed', reason: 'browser_stale' });
    expect((await h.send({ recipient: 't', title: 'x' })).status).toBe(409);
    // A stale browser polling again gets a new browser, not its old one back.
    const poll = await h.request(`/v1/connect/${browser.token}`, {
      method: 'POST',
      json: { browser_id: browser.browserId, browser_secret: browser.secret },
    });
    expect(poll.status).toBe(201);
    expect((await poll.json()).browser_id).not.toBe(browser.browserId);
  });

  it('a poll keeps a browser from going stale', async () => {
    const browser = await h.connectBrowser('alive');
    for (let i = 0; i < 4; i++) {
      h.clock.advance(100_000);
      const poll = await h.request(`/v1/connect/${browser.token}`, {
        method: 'POST',
        json: { browser_id: browser.browserId, browser_secret: browser.secret },
      });
      expect(poll.status).toBe(200);
      await h.tidings.sweep();
    }
    expect((await h.send({ recipient: 'alive', title: 'x' })).status).toBe(201);
  });
});

describe('suspension and per-IP limits on browser endpoints', () => {
  it('a suspended project’s tokens and secrets get 403 PROJECT_SUSPENDED and count nothing', async () => {
    const browser = await h.connectBrowser('s');
    await h.tidings.admin.suspendProject(h.project.id);
    for (let i = 0; i < 70; i++) {
      const response = await h.request(`/v1/connect/${browser.token}`, { method: 'POST' });
      expect(response.status).toBe(403);
    }
    expect((await (await postEvents(browser, [{ type: 'delivered', attempt_id: 'x' }])).json()).code).toBe(
      'PROJECT_SUSPENDED',
    );
    expect((await h.send({ recipient: 's', title: 'x' })).status).toBe(403);
    await h.tidings.admin.resumeProject(h.project.id);
    // Nothing was counted while suspended: the connect limit of 60 is untouched.
    expect((await h.request(`/v1/connect/${browser.token}`, { method: 'POST' })).status).toBe(201);
  });

  it('connect is limited to 60 per IP per 60 s, events and disconnect share 300', async () => {
    const token = (await h.tidings.createConnectToken({ projectId: h.project.id, recipient: 'ip' })).token;
    h.from('198.51.100.20');
    for (let i = 0; i < 60; i++) expect((await h.request(`/v1/connect/${token}`, { method: 'POST' })).status).toBe(201);
    const limited = await h.request(`/v1/connect/${token}`, { method: 'POST' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // IPv6 addresses of one /64 share a limit; another /64 does not.
    h.from('2001:db8:1:2::1');
    for (let i = 0; i < 60; i++) await h.request(`/v1/connect/${token}`, { method: 'POST' });
    expect((await h.from('2001:db8:1:2:ffff::9').request(`/v1/connect/${token}`, { method: 'POST' })).status).toBe(429);
    expect((await h.from('2001:db8:1:3::1').request(`/v1/connect/${token}`, { method: 'POST' })).status).toBe(201);

    h.from('198.51.100.30');
    const browser = await h.connectBrowser('ev');
    for (let i = 0; i < 299; i++) {
      expect((await postEvents(browser, [{ type: 'displayed', attempt_id: 'att_none' }])).status).toBe(202);
    }
    const disconnect = await h.request(`/v1/browsers/${browser.browserId}/disconnect`, {
      method: 'POST',
      json: { browser_secret: browser.secret },
    });
    expect(disconnect.status).toBe(204);
    expect((await postEvents(browser, [{ type: 'displayed', attempt_id: 'att_none' }])).status).toBe(429);
  });
});
