import { describe, expect, it } from 'vitest';
import type { Delivery } from '../ports/records.js';
import { pushEnvelope } from './envelope.js';
import { MAX_PUSH_PLAINTEXT_BYTES } from './web-push.js';

const delivery: Delivery = {
  attemptId: 'att_01jdv5cz00k2a7d3m9qx4w8t6e',
  browserId: 'brw_01jdv5cz00k2a7d3m9qx4w8t6f',
  seq: 3,
  notificationId: 'ntf_01jdv5cz00k2a7d3m9qx4w8t6g',
  title: 'Hello',
  body: 'Body',
  url: '/inbox/1',
  icon: null,
  tag: 'thread',
  data: { n: 1 },
  createdAt: Date.UTC(2026, 0, 1),
  expiresAt: Date.UTC(2026, 0, 2),
  inboxVersion: 7,
};

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('pushEnvelope', () => {
  it('carries the notification as the event stream does, with the browser it is for', () => {
    expect(JSON.parse(pushEnvelope(delivery))).toEqual({
      tidings: 1,
      browser_id: delivery.browserId,
      notification: {
        attempt_id: delivery.attemptId,
        notification_id: delivery.notificationId,
        title: 'Hello',
        body: 'Body',
        url: '/inbox/1',
        icon: null,
        tag: 'thread',
        data: { n: 1 },
        created_at: '2026-01-01T00:00:00.000Z',
        expires_at: '2026-01-02T00:00:00.000Z',
        inbox_version: 7,
      },
    });
  });

  it('drops data first, then the icon, when that is enough', () => {
    const large = { ...delivery, data: { blob: 'x'.repeat(4000) } };
    const reduced = JSON.parse(pushEnvelope(large));
    expect(reduced.notification).toMatchObject({ data: null, body: 'Body', title: 'Hello' });
    const withIcon = { ...large, icon: `https://cdn.example/${'i'.repeat(2000)}`, body: 'é'.repeat(1000) };
    const noIcon = JSON.parse(pushEnvelope(withIcon));
    expect(noIcon.notification).toMatchObject({ data: null, icon: null, body: 'é'.repeat(1000) });
  });

  it('cuts the body, then the title, to whole characters ending in …, and always fits', () => {
    const huge: Delivery = {
      ...delivery,
      title: '😀'.repeat(200),
      body: '😀'.repeat(2000),
      url: `https://example.com/${'u'.repeat(2000)}`,
      icon: `https://example.com/${'i'.repeat(2000)}`,
      data: { blob: 'x'.repeat(4000) },
    };
    const text = pushEnvelope(huge);
    expect(bytes(text)).toBeLessThanOrEqual(MAX_PUSH_PLAINTEXT_BYTES);
    const { notification } = JSON.parse(text);
    expect(notification).toMatchObject({ attempt_id: delivery.attemptId, data: null, icon: null });
    // Cut at a code point: no lone surrogate, and the mark of a cut at the end.
    const body = notification.body as string | null;
    if (body !== null) {
      expect(body.endsWith('…')).toBe(true);
      expect(body).toMatch(/^(😀)*…$/u);
    }
    expect(notification.title).toMatch(/^(😀)+(…)?$/u);
    // A notification that fits is never cut.
    expect(JSON.parse(pushEnvelope(delivery)).notification.body).toBe('Body');
  });

  it('keeps each reduced envelope under any limit given', () => {
    for (const limit of [600, 900, 1500, 2000]) {
      const text = pushEnvelope({ ...delivery, body: 'b'.repeat(2000), data: { x: 'y'.repeat(1000) } }, limit);
      expect(bytes(text)).toBeLessThanOrEqual(limit);
      expect(JSON.parse(text).notification.body).toMatch(/^b+…$/);
    }
    // Without its data it fits whole: the body is kept.
    const whole = pushEnvelope({ ...delivery, body: 'b'.repeat(2000), data: { x: 'y'.repeat(1000) } }, 3000);
    expect(JSON.parse(whole).notification).toMatchObject({ body: 'b'.repeat(2000), data: null });
  });
});
