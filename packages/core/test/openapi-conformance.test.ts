import { conformanceChecker, expectConforms, type ObservedAnswer } from '@tidings/test-support/openapi-conformance.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.js';

/** The checker the end-to-end tests rely on must refuse what departs from the document. */
let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

async function observe(method: string, url: string, response: Response): Promise<ObservedAnswer> {
  return { method, url, status: response.status, headers: response.headers, body: await response.text() };
}

async function sentNotification(): Promise<ObservedAnswer> {
  await h.connectBrowser('user_1');
  const response = await h.send({ recipient: 'user_1', title: 'Hi' });
  expect(response.status).toBe(201);
  return observe('POST', 'http://tidings.test/v1/notifications', response);
}

const check = (answer: ObservedAnswer) => conformanceChecker().check(answer);

function withBody(answer: ObservedAnswer, change: (body: Record<string, unknown>) => void): ObservedAnswer {
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  change(body);
  return { ...answer, body: JSON.stringify(body) };
}

function withHeaders(answer: ObservedAnswer, change: (headers: Headers) => void): ObservedAnswer {
  const headers = new Headers(answer.headers);
  change(headers);
  return { ...answer, headers };
}

describe('the conformance checker', () => {
  it('accepts a real answer of the instance', async () => {
    expect(check(await sentNotification())).toEqual([]);
  });

  it('refuses a body with a field missing, a field added, or a value of the wrong shape', async () => {
    const answer = await sentNotification();
    expect(check(withBody(answer, (body) => delete body.attempts)).join()).toMatch(
      /must have required property 'attempts'/,
    );
    expect(check(withBody(answer, (body) => (body.colour = 'red'))).join()).toMatch(
      /must NOT have additional properties/,
    );
    expect(check(withBody(answer, (body) => (body.created_at = 'yesterday'))).join()).toMatch(/created_at must match/);
    expect(check(withBody(answer, (body) => (body.id = 'ntf_1'))).join()).toMatch(/\/id must match pattern/);
    expect(
      check(withBody(answer, (body) => ((body.attempts as { status: string }[])[0]!.status = 'lost'))).join(),
    ).toMatch(/status must be equal to one of the allowed values/);
  });

  it('refuses an undocumented status, a missing Request-Id, another media type, and a bad header value', async () => {
    const answer = await sentNotification();
    expect(check({ ...answer, status: 200 }).join()).toMatch(/status not documented for createNotification/);
    expect(check(withHeaders(answer, (headers) => headers.delete('request-id'))).join()).toMatch(/no Request-Id/);
    expect(check(withHeaders(answer, (headers) => headers.set('content-type', 'text/html'))).join()).toMatch(
      /media type text\/html is not one of application\/json/,
    );
    expect(check(withHeaders(answer, (headers) => headers.set('ratelimit', 'lots'))).join()).toMatch(
      /header RateLimit must match pattern/,
    );
  });

  it('refuses a 429 without Retry-After, and a problem whose code the operation does not answer with that status', async () => {
    const problem = await observe(
      'GET',
      'http://tidings.test/v1/notifications/ntf_unknown',
      await h.request('/v1/notifications/ntf_unknown', { key: h.liveKey }),
    );
    expect(problem.status).toBe(404);
    expect(check(problem)).toEqual([]);
    const limited = withBody({ ...problem, status: 429 }, (body) => {
      body.status = 429;
      body.code = 'RATE_LIMITED';
    });
    expect(check(limited).join()).toMatch(/required header Retry-After is missing/);
    expect(check(withBody(problem, (body) => (body.code = 'IDEMPOTENCY_MISMATCH'))).join()).toMatch(
      /code must be equal to one of the allowed values/,
    );
  });

  it('refuses a body on a 204, and an unknown path answered with anything but a 404 problem', async () => {
    const { browserId, secret } = await h.connectBrowser('user_2');
    const url = `http://tidings.test/v1/browsers/${browserId}/disconnect`;
    const answer = await observe(
      'POST',
      url,
      await h.request(`/v1/browsers/${browserId}/disconnect`, { method: 'POST', json: { browser_secret: secret } }),
    );
    expect(answer.status).toBe(204);
    expect(check(answer)).toEqual([]);
    expect(check({ ...answer, body: '{}' }).join()).toMatch(/a body where the document has none/);
    expect(check({ ...answer, url: 'http://tidings.test/v1/nowhere', status: 200 }).join()).toMatch(
      /not in the document, yet not 404/,
    );
  });

  it('refuses event data that departs from its schema', () => {
    expect(conformanceChecker().checkEvent('ready', '{"browser_id":"brw_x"}').length).toBeGreaterThan(0);
    expect(conformanceChecker().checkEvent('surprise', '{}').join()).toMatch(/not a documented event/);
  });

  it('expectConforms throws on a deliberately wrong answer, with what is wrong', async () => {
    const wrong = new Response(JSON.stringify({ object: 'notification', id: 'ntf_x' }), {
      status: 201,
      headers: { 'Content-Type': 'application/json', 'Request-Id': 'req_01jdv5cz00k2a7d3m9qx4w8t6e' },
    });
    await expect(expectConforms('POST', 'http://tidings.test/v1/notifications', wrong)).rejects.toThrow(
      /does not conform to the OpenAPI document[\s\S]*must have required property 'recipient'/,
    );
  });
});
