import { describe, expect, it } from 'vitest';
import { TidingsError } from '../errors.js';
import { readBodyText } from './body.js';

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
