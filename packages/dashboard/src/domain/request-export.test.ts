import type { RequestLogObject } from '@tidings/core';
import { describe, expect, it } from 'vitest';
import { csvField, requestAsCurl, requestCsvRow, shellWord } from './request-export.js';

const request: RequestLogObject = {
  object: 'request',
  id: 'req_01',
  method: 'POST',
  path: '/v1/notifications',
  status: 409,
  code: 'NO_CONNECTED_BROWSER',
  key_prefix: 'sk_live_AbCd',
  mode: 'live',
  idempotency_key: "it's-7",
  notification_ids: [],
  recipient: '=cmd',
  created_at: '2026-01-10T12:00:00.000Z',
  duration_ms: 1.5,
  request_body: { text: '{"recipient":"=cmd","title":"It\'s, \\"here\\""}', truncated: false },
  response_body: null,
};

describe('the request log’s export and curl', () => {
  it('quotes CSV fields by RFC 4180 and keeps a spreadsheet from running a formula', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField(null)).toBe('');
    expect(csvField(409)).toBe('409');
    expect(requestCsvRow(request).split(',').slice(0, 5)).toEqual([
      'req_01',
      '2026-01-10T12:00:00.000Z',
      'POST',
      '/v1/notifications',
      '409',
    ]);
  });

  it('makes a curl whose words a shell reads back as they were, with the key from the environment', () => {
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    const curl = requestAsCurl(request, 'https://api.example.com/notify');
    expect(curl).toBe(
      [
        `curl -X POST 'https://api.example.com/notify/v1/notifications'`,
        `-H "Authorization: Bearer $TIDINGS_API_KEY"`,
        `-H 'Idempotency-Key: it'\\''s-7'`,
        `-H 'Content-Type: application/json'`,
        `--data-raw '{"recipient":"=cmd","title":"It'\\''s, \\"here\\""}'`,
      ].join(' \\\n  '),
    );
    expect(requestAsCurl({ ...request, method: 'GET', request_body: null, idempotency_key: null }, 'http://x')).toBe(
      `curl -X GET 'http://x/v1/notifications' \\\n  -H "Authorization: Bearer $TIDINGS_API_KEY"`,
    );
  });
});
