import { describe, expect, it } from 'vitest';
import { finishRequestLogEntry } from './entry.js';
import { logBody, REDACTED, redactQuery, redactSecrets } from './redact.js';

const KEY = 'sk_live_abcdefghijklmnopqrstuvwxyz012345';
const TOKEN = 'ct_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const SECRET = 'bs_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';

describe('redactSecrets', () => {
  it('removes the values of secret fields, whatever their name’s case and spacing', () => {
    const answer = JSON.stringify({
      object: 'connect_token',
      token: TOKEN,
      recipient: 'user-1',
      connect_url: `https://api.example/v1/connect/${TOKEN}`,
    });
    const redacted = redactSecrets(answer);
    expect(JSON.parse(redacted)).toEqual({
      object: 'connect_token',
      token: REDACTED,
      recipient: 'user-1',
      connect_url: REDACTED,
    });
    expect(redactSecrets('{ "Browser_Secret" : "x\\"y", "password": 42 }')).toBe(
      `{ "Browser_Secret" : "${REDACTED}", "password": "${REDACTED}" }`,
    );
  });

  it('removes keys, tokens and secrets by their shape anywhere, even in text that is not JSON', () => {
    const text = `key ${KEY} token ${TOKEN}, secret ${SECRET}; Authorization: Bearer abc.def whsec_c2VjcmV0`;
    const redacted = redactSecrets(text);
    for (const secret of [KEY, TOKEN, SECRET, 'abc.def', 'whsec_c2VjcmV0']) expect(redacted).not.toContain(secret);
    expect(redacted).toContain('key [redacted] token [redacted]');
  });

  it('leaves ordinary data alone', () => {
    const body = '{"recipient":"product_12345678","title":"Hi","data":{"count":3,"keys":["a"]}}';
    expect(redactSecrets(body)).toBe(body);
  });
});

describe('redactQuery', () => {
  it('removes the values of parameters named for secrets, and secrets by shape', () => {
    expect(redactQuery(`?limit=10&token=abc&api_key=zzz&q=${KEY}`)).toBe(
      `?limit=10&token=${REDACTED}&api_key=${REDACTED}&q=${REDACTED}`,
    );
    expect(redactQuery('')).toBe('');
  });
});

describe('logBody', () => {
  it('keeps a body under the cap whole, and none for an empty one', () => {
    expect(logBody('{"a":1}')).toEqual({ text: '{"a":1}', truncated: false });
    expect(logBody('')).toBeNull();
    expect(logBody(null)).toBeNull();
  });

  it('cuts past the cap between two characters, and marks the cut', () => {
    const body = logBody('é'.repeat(20), 9);
    expect(body).toEqual({ text: 'éééé', truncated: true });
    expect(logBody('abcdef', 6)).toEqual({ text: 'abcdef', truncated: false });
  });

  it('removes secrets before cutting, so that no part of one is left at the cut', () => {
    const text = `${'x'.repeat(10)}${KEY}`;
    const body = logBody(text, 15);
    expect(body?.truncated).toBe(true);
    expect(body?.text).toBe(`${'x'.repeat(10)}[reda`);
    expect(body?.text).not.toContain('sk_live_');
  });

  it('keeps a NUL character as U+FFFD', () => {
    expect(logBody('a\0b')).toEqual({ text: 'a\uFFFDb', truncated: false });
  });
});

describe('finishRequestLogEntry', () => {
  it('removes a key pasted into the path, the recipient or the Idempotency-Key', () => {
    const entry = finishRequestLogEntry({
      requestId: 'req_1',
      projectId: 'proj_1',
      keyPrefix: 'sk_live_abcd',
      mode: 'live',
      method: 'GET',
      pathname: `/v1/recipients/${KEY}/inbox`,
      query: `?starting_after=${TOKEN}`,
      params: { recipient: KEY },
      status: 200,
      idempotencyKey: `retry-${KEY}`,
      createdAt: 1,
      durationMs: 1,
      requestText: null,
      responseText: null,
      concerns: null,
    });
    expect(entry).toMatchObject({
      path: '/v1/recipients/[redacted]/inbox?starting_after=[redacted]',
      recipient: REDACTED,
      idempotencyKey: `retry-${REDACTED}`,
    });
  });

  it('takes what the route told it concerns over what the bodies say, and the code of a refusal from its body', () => {
    const told = { notificationIds: ['ntf_told'], recipient: `user-${KEY}` };
    const base = {
      requestId: 'req_1',
      projectId: 'proj_1',
      keyPrefix: 'sk_live_abcd',
      mode: 'live' as const,
      method: 'POST',
      pathname: '/v1/notifications',
      query: '',
      params: {},
      idempotencyKey: null,
      createdAt: 1,
      durationMs: 1,
      requestText: '{"recipient":"from-body"}',
    };
    const sent = finishRequestLogEntry({
      ...base,
      status: 201,
      responseText: '{"object":"notification","id":"ntf_01ARZ3NDEKTSV4RRFFQ69G5FAV","recipient":"from-answer"}',
      concerns: told,
    });
    expect(sent).toMatchObject({ notificationIds: ['ntf_told'], recipient: `user-${REDACTED}`, code: null });
    const refused = finishRequestLogEntry({
      ...base,
      status: 409,
      responseText: '{"code":"NO_CONNECTED_BROWSER"}',
      concerns: { notificationIds: [], recipient: 'r' },
    });
    expect(refused).toMatchObject({ notificationIds: [], recipient: 'r', code: 'NO_CONNECTED_BROWSER' });
    // Untold, the same request's bodies say it.
    expect(finishRequestLogEntry({ ...base, status: 409, responseText: '{}', concerns: null })).toMatchObject({
      recipient: 'from-body',
    });
  });
});
