import { describe, expect, it } from 'vitest';
import { TidingsError } from '../errors.js';
import { readBodyText, readJsonBody } from './body.js';

const encoder = new TextEncoder();

/** A request whose body arrives as a stream of chunks, with no declared length unless given. */
function streamed(chunks: Uint8Array[], onPull?: () => void, headers: Record<string, string> = {}): Request {
  let index = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        onPull?.();
        if (index < chunks.length) controller.enqueue(chunks[index++]!);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  ); // pulled only when read
  return new Request('http://x/', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TidingsError);
  return (error as TidingsError).code;
}

describe('readBodyText', () => {
  it('reads a body of declared length whole', async () => {
    const request = new Request('http://x/', {
      method: 'POST',
      body: '{"a":"é"}',
      headers: { 'content-length': '10' },
    });
    expect(await readBodyText(request, 10)).toBe('{"a":"é"}');
  });

  it('refuses a declared length over the limit before reading (413)', async () => {
    let pulled = 0;
    const request = streamed([encoder.encode('x')], () => pulled++, { 'content-length': '1000' });
    expect(await codeOf(readBodyText(request, 100))).toBe('PAYLOAD_TOO_LARGE');
    expect(pulled).toBe(0);
  });

  it('does not trust a declared length: a longer body is still refused (413)', async () => {
    const request = new Request('http://x/', {
      method: 'POST',
      body: 'x'.repeat(500),
      headers: { 'content-length': '10' },
    });
    expect(await codeOf(readBodyText(request, 100))).toBe('PAYLOAD_TOO_LARGE');
  });

  it('counts a body of undeclared length as it arrives, and stops reading past the limit (413)', async () => {
    let pulled = 0;
    const chunk = encoder.encode('x'.repeat(40));
    const request = streamed(Array(100).fill(chunk), () => pulled++);
    expect(request.headers.get('content-length')).toBeNull();
    expect(await codeOf(readBodyText(request, 100))).toBe('PAYLOAD_TOO_LARGE');
    expect(pulled).toBeLessThan(10);
  });

  it('reads a body of undeclared length within the limit', async () => {
    const request = streamed([encoder.encode('{"a":'), encoder.encode('1}')]);
    expect(await readBodyText(request, 100)).toBe('{"a":1}');
  });

  it('refuses bytes that are not UTF-8 (400), on either path', async () => {
    const invalid = new Uint8Array([0x7b, 0xff, 0x7d]);
    expect(await codeOf(readBodyText(new Request('http://x/', { method: 'POST', body: invalid }), 100))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await codeOf(readBodyText(streamed([invalid]), 100))).toBe('VALIDATION_FAILED');
  });

  it('reads an absent body as empty text', async () => {
    expect(await readBodyText(new Request('http://x/'), 100)).toBe('');
  });
});

describe('readJsonBody', () => {
  const post = (body: string, contentType?: string) =>
    new Request('http://x/', {
      method: 'POST',
      body,
      headers: contentType === undefined ? {} : { 'content-type': contentType },
    });
  const json = { maxBytes: 1024, accepted: 'json', required: true } as const;

  it('takes JSON media types in any case and with parameters, and refuses others (415)', async () => {
    for (const type of ['application/json', 'Application/JSON; charset=UTF-8', 'application/merge-patch+json']) {
      expect(await readJsonBody(post('{"a":1}', type), json)).toEqual({ a: 1 });
    }
    for (const type of ['text/plain', 'application/jsonx', undefined]) {
      expect(await codeOf(readJsonBody(post('{"a":1}', type), json))).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect(await readJsonBody(post('{"a":1}', 'text/plain'), { ...json, accepted: 'json-or-text' })).toEqual({ a: 1 });
  });

  it('reads a blank body as absent: refused when required (400), undefined when not', async () => {
    for (const blank of ['', '  ', ' \n\t\r\n ']) {
      expect(await codeOf(readJsonBody(post(blank, 'application/json'), json))).toBe('VALIDATION_FAILED');
      expect(await readJsonBody(post(blank, 'application/json'), { ...json, required: false })).toBeUndefined();
    }
    expect(await codeOf(readJsonBody(post(' {', 'application/json'), json))).toBe('VALIDATION_FAILED');
    expect(await readJsonBody(post(' \n 7 ', 'application/json'), json)).toBe(7);
  });
});
