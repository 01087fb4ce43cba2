import { describe, expect, it } from 'vitest';
import { LazyTextResponse } from './lazy-text-response.js';
import { jsonReply, textAnswerOf } from './responses.js';

const make = () =>
  new LazyTextResponse(
    201,
    { 'Content-Type': 'application/json', 'Request-Id': 'req_1' },
    '{"a":1}',
  ) as unknown as Response;

describe('LazyTextResponse', () => {
  it('is a Response to anything that reads it: status, headers, body, clone', async () => {
    const response = make();
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('request-id')).toBe('req_1');
    expect(response.bodyUsed).toBe(false);
    const copy = response.clone();
    expect(await response.json()).toEqual({ a: 1 });
    expect(response.bodyUsed).toBe(true);
    expect(await copy.text()).toBe('{"a":1}');
    expect(await new Response(make().body).text()).toBe('{"a":1}');
  });

  it('is what a reply is when the host writes text answers, and a plain Response otherwise', () => {
    const base = { responseHeaders: {}, edgeHeaders: {}, requestId: 'req_2' };
    const lazy = jsonReply({ ...base, writesTextAnswers: true }, 200, '{}');
    const plain = jsonReply(base, 200, '{}');
    expect(lazy).toBeInstanceOf(LazyTextResponse);
    expect(plain).not.toBeInstanceOf(LazyTextResponse);
    expect(textAnswerOf(lazy)).toEqual(textAnswerOf(plain));
    expect(textAnswerOf(lazy)?.headers['Request-Id']).toBe('req_2');
  });
});
