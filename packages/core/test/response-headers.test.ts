import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

/** docs/api.md#errors and #cors: every response carries Request-Id; every route answers CORS; token URLs send no Referer. */
describe('headers on every kind of answer', () => {
  it('201, 200, 202, 204, 405, preflight and an event stream all carry Request-Id and CORS; browser routes no-referrer', async () => {
    const browser = await h.connectBrowser('hdr');
    const answers: [string, Response, 'api' | 'browser'][] = [
      ['send 201', await h.send({ recipient: 'hdr', title: 'x' }), 'api'],
      ['wrong method 405', await h.request('/v1/notifications', { method: 'PUT', key: h.liveKey }), 'api'],
      ['preflight 204', await h.request('/v1/events', { method: 'OPTIONS' }), 'browser'],
      [
        'events 202',
        await h.request('/v1/events', {
          method: 'POST',
          json: {
            browser_id: browser.browserId,
            browser_secret: browser.secret,
            events: [{ type: 'displayed', attempt_id: 'att_x' }],
          },
        }),
        'browser',
      ],
      ['stream 200', await h.request(`/v1/connect/${browser.token}`), 'browser'],
      [
        'disconnect 204',
        await h.request(`/v1/browsers/${browser.browserId}/disconnect`, { method: 'POST', body: browser.secret }),
        'browser',
      ],
    ];
    const ids = new Set<string>();
    for (const [name, response, kind] of answers) {
      const requestId = response.headers.get('request-id');
      expect(requestId, name).toMatch(/^req_[0-9a-z]{26}$/);
      ids.add(requestId!);
      // API routes answer CORS too, so that test keys work from a page.
      expect(response.headers.get('access-control-allow-origin'), name).toBe('*');
      expect(response.headers.get('referrer-policy'), name).toBe(kind === 'browser' ? 'no-referrer' : null);
      await response.body?.cancel();
    }
    expect(ids.size).toBe(answers.length);
    // Authenticated answers carry the RateLimit headers, the stream keeps its own Cache-Control.
    expect(answers[0]![1].headers.get('ratelimit-policy')).toBe('"key";q=60;w=60');
    expect(answers[0]![1].headers.get('cache-control')).toBe('no-store');
    expect(answers[4]![1].headers.get('cache-control')).toBe('no-cache, no-transform');
  });
});
