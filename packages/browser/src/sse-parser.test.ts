import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from './sse-parser.js';

function parse(chunks: string[], lastEventId?: string) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const parser = createSseParser({
    onEvent: (event) => events.push(event),
    onRetry: (milliseconds) => retries.push(milliseconds),
    ...(lastEventId === undefined ? {} : { lastEventId }),
  });
  for (const chunk of chunks) parser.feed(chunk);
  return { events, retries, lastEventId: parser.lastEventId };
}

const whole = (text: string, lastEventId?: string) => parse([text], lastEventId);

describe('createSseParser, WHATWG cases', () => {
  it('dispatches an event with a type, data and id', () => {
    expect(whole('event: ready\nid: brw_1.0\ndata: {"a":1}\n\n').events).toEqual([
      { type: 'ready', data: '{"a":1}', id: 'brw_1.0' },
    ]);
  });

  it('joins multi-line data with LF and types an event without `event` as message', () => {
    expect(whole('data: one\ndata: two\ndata:\ndata:  four\n\n').events).toEqual([
      { type: 'message', data: 'one\ntwo\n\n four', id: '' },
    ]);
  });

  it('treats CRLF, CR and LF alike, mixed in one stream', () => {
    const events = whole('data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n').events;
    expect(events.map((event) => event.data)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('ignores comments, even one that looks like a field after its colon', () => {
    const result = whole(': ping\n\n:\n\ndata: x\n: in the middle\n:data: y\n:id: 9\n:retry: 5\n\n');
    expect(result.events).toEqual([{ type: 'message', data: 'x', id: '' }]);
    expect(result.retries).toEqual([]);
  });

  it('updates the last event id on a block with an id and no data, without an event', () => {
    const result = whole('id: brw_1.7\n\n');
    expect(result.events).toEqual([]);
    expect(result.lastEventId).toBe('brw_1.7');
  });

  it('keeps the last event id for the following events, and an empty id resets it', () => {
    const result = whole('id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n');
    expect(result.events.map((event) => event.id)).toEqual(['1', '1', '']);
  });

  it('commits an id only when its block is dispatched', () => {
    expect(whole('id: 5\ndata: unterminated').lastEventId).toBe('');
    expect(parse(['id: 5\ndata: unterminated'], 'old').lastEventId).toBe('old');
  });

  it('ignores an id that contains NUL', () => {
    expect(whole('id: 1\n\nid: a\0b\ndata: x\n\n').events).toEqual([{ type: 'message', data: 'x', id: '1' }]);
  });

  it('accepts retry of ASCII digits only', () => {
    expect(whole('retry: 3000\nretry: 1.5\nretry: -1\nretry: 20s\nretry:\nretry:250\n\n').retries).toEqual([3000, 250]);
  });

  it('reads a line without a colon as a field name with an empty value', () => {
    expect(whole('data\n\n').events).toEqual([{ type: 'message', data: '', id: '' }]);
    expect(whole('event\ndata: x\n\n').events).toEqual([{ type: 'message', data: 'x', id: '' }]);
  });

  it('removes one space after the colon, not more, and keeps colons in the value', () => {
    expect(whole('data:no space\n\ndata:   three\n\ndata: a: b\n\n').events.map((event) => event.data)).toEqual([
      'no space',
      '  three',
      'a: b',
    ]);
  });

  it('ignores unknown fields and field names that differ in case', () => {
    expect(whole('foo: bar\nData: x\ndata: y\nEVENT: z\n\n').events).toEqual([{ type: 'message', data: 'y', id: '' }]);
  });

  it('skips one BOM at the start of the stream, and only there', () => {
    expect(whole('\uFEFFdata: a\n\n').events).toEqual([{ type: 'message', data: 'a', id: '' }]);
    // A second BOM is part of the first field name, which then is not `data`.
    expect(whole('\uFEFF\uFEFFdata: a\n\n').events).toEqual([]);
    expect(parse(['', '\uFEFFdata: a\n\n']).events).toHaveLength(1);
    expect(parse(['data: a\n\n', '\uFEFFdata: b\n\n']).events.map((event) => event.data)).toEqual(['a']);
  });

  it('discards an unterminated block at the end of the stream', () => {
    expect(whole('data: a\n\ndata: b\n').events.map((event) => event.data)).toEqual(['a']);
  });

  it('resets the event type after each dispatch, even of a block without data', () => {
    expect(whole('event: ready\n\ndata: x\n\n').events).toEqual([{ type: 'message', data: 'x', id: '' }]);
  });

  it('joins a CRLF split across two chunks into one line break', () => {
    const result = parse(['data: a\r', '\ndata: b\r', '\n\r', '\n']);
    expect(result.events.map((event) => event.data)).toEqual(['a\nb']);
  });

  it('keeps a pending CR across an empty chunk', () => {
    expect(parse(['data: a\r', '', '\n\n']).events.map((event) => event.data)).toEqual(['a']);
  });
});

const lineBreak = fc.constantFrom('\n', '\r', '\r\n');
const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', 'é', '😀', '{', '"', '\0') });
const line = fc.oneof(
  fc
    .tuple(fc.constantFrom('data', 'event', 'id', 'retry', ':', 'foo', 'data:', 'event:'), text)
    .map(([field, value]) => (field.endsWith(':') ? `${field}${value}` : `${field}: ${value}`)),
  fc.constant('data'),
  fc.constant(''),
  fc.integer({ min: 0, max: 99_999 }).map((milliseconds) => `retry: ${milliseconds}`),
);
/** A stream of random lines with random line endings. */
const stream = fc
  .array(fc.tuple(line, lineBreak), { maxLength: 40 })
  .map((lines) => lines.map(([content, ending]) => content + ending).join(''));

/** Cuts a string at random places, including between CR and LF and inside surrogate pairs' neighbours. */
const splitAt = (input: string, cuts: number[]) => {
  const points = [...new Set(cuts.map((cut) => cut % (input.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(input.slice(start, point));
    start = point;
  }
  pieces.push(input.slice(start));
  return pieces;
};

describe('createSseParser, properties', () => {
  it('gives the same events, retries and last id however the stream is chunked', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 30 }), (input, cuts) => {
        expect(parse(splitAt(input, cuts))).toEqual(whole(input));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same events as whole text when the bytes are split anywhere and decoded as a stream', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 30 }), (input, cuts) => {
        const bytes = new TextEncoder().encode(input);
        const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let start = 0;
        for (const point of [...points, bytes.length]) {
          chunks.push(decoder.decode(bytes.subarray(start, point), { stream: true }));
          start = point;
        }
        expect(parse(chunks).events).toEqual(whole(input).events);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with eventsource-parser on the types, data and retries of every event', () => {
    fc.assert(
      fc.property(stream, (input) => {
        const reference: { type: string; data: string }[] = [];
        const referenceRetries: number[] = [];
        const parser = createParser({
          onEvent: (event) => reference.push({ type: event.event || 'message', data: event.data }),
          onRetry: (milliseconds) => referenceRetries.push(milliseconds),
        });
        // eventsource-parser holds a final CR back, waiting for a possible LF; WHATWG ends the
        // line there. A CR LF is one line break for both, so give it the LF.
        parser.feed(input.endsWith('\r') ? `${input}\n` : input);
        const ours = whole(input);
        expect(ours.events.map(({ type, data }) => ({ type, data }))).toEqual(reference);
        expect(ours.retries).toEqual(referenceRetries);
      }),
      { numRuns: 500 },
    );
  });
});
