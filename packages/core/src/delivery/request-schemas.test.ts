import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { notificationBodySchema, utf8ByteLength } from './request-schemas.js';

describe('utf8ByteLength', () => {
  it('counts what TextEncoder writes, for any string, lone surrogates included', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(utf8ByteLength(text)).toBe(encoder.encode(text).byteLength);
      }),
      { numRuns: 1000 },
    );
    expect([utf8ByteLength('a'), utf8ByteLength('é'), utf8ByteLength('€'), utf8ByteLength('😀')]).toEqual([1, 2, 3, 4]);
    expect([utf8ByteLength('\ud800'), utf8ByteLength('\udc00x'), utf8ByteLength('\ud800\ud800')]).toEqual([3, 4, 6]);
  });
});

describe('notificationBodySchema data', () => {
  const body = (data: unknown) => ({ recipient: 'r', title: 't', data });

  it('takes data up to 4096 bytes serialized, counting multi-byte characters as bytes', () => {
    // {"k":"…"} is 8 bytes around the value.
    expect(notificationBodySchema.safeParse(body({ k: 'x'.repeat(4088) })).success).toBe(true);
    expect(notificationBodySchema.safeParse(body({ k: 'x'.repeat(4089) })).success).toBe(false);
    expect(notificationBodySchema.safeParse(body({ k: '€'.repeat(1362) })).success).toBe(true);
    expect(notificationBodySchema.safeParse(body({ k: '€'.repeat(1363) })).success).toBe(false);
  });
});
