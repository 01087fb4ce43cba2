import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime, notificationObject, serializeNotification } from './serialize.js';
import { deliveryEventBytes, deliveryPayload, deliveryPayloadJson, toDelivery } from './stream/delivery.js';
import { sseEventId } from './stream/sse.js';

describe('isoTime', () => {
  it('formats as Date#toISOString does, whatever values came before (recent ones are reused)', () => {
    const instant = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) });
    fc.assert(
      fc.property(fc.array(fc.oneof(instant, fc.constantFrom(0, 1_780_000_000_000, 1_780_000_000_001))), (values) => {
        for (const ms of values) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  it('keeps null as null', () => {
    expect(isoTime(null)).toBeNull();
  });
});

const anyString = fc.string({ unit: 'binary', maxLength: 40 });
const time = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) });
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const notificationArbitrary = fc.record({
  notification: fc.record({
    id: anyString,
    projectId: anyString,
    mode: fc.constantFrom('live' as const, 'test' as const),
    recipient: anyString,
    title: anyString,
    body: maybe(anyString),
    url: maybe(anyString),
    icon: maybe(anyString),
    tag: maybe(anyString),
    data: maybe(fc.dictionary(anyString, fc.jsonValue({ maxDepth: 2 }))),
    ttl: fc.integer({ min: 1, max: 604_800 }),
    createdAt: time,
    expiresAt: time,
    // Kept for the dashboard, never serialized: the public object must not change with them.
    apiKeyId: maybe(anyString),
    requestId: maybe(anyString),
    idempotencyKey: maybe(anyString),
  }),
  attempts: fc.array(
    fc.record({
      id: anyString,
      notificationId: anyString,
      browserId: anyString,
      seq: fc.nat(),
      status: fc.constantFrom(
        'accepted' as const,
        'sent' as const,
        'delivered' as const,
        'expired' as const,
        'failed' as const,
      ),
      final: fc.boolean(),
      acceptedAt: time,
      sentAt: maybe(time),
      sentVia: fc.constantFrom('stream' as const, 'poll' as const, 'push' as const, null),
      pushAcceptedAt: maybe(time),
      deliveredAt: maybe(time),
      failedAt: maybe(time),
      expiredAt: maybe(time),
      reason: maybe(
        fc.constantFrom(
          'browser_disconnected' as const,
          'browser_stale' as const,
          'ttl_expired' as const,
          'push_rejected' as const,
        ),
      ),
      displayedAt: maybe(time),
      clickedAt: maybe(time),
      dismissedAt: maybe(time),
    }),
    { maxLength: 4 },
  ),
});

describe('serializeNotification', () => {
  it('writes exactly what JSON.stringify of the notification object writes', () => {
    fc.assert(
      fc.property(notificationArbitrary, (found) => {
        expect(serializeNotification(found)).toBe(JSON.stringify(notificationObject(found)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('deliveryPayloadJson', () => {
  it('writes exactly what JSON.stringify of the delivery payload writes', () => {
    fc.assert(
      fc.property(notificationArbitrary, ({ notification, attempts }) => {
        for (const attempt of attempts) {
          const delivery = toDelivery(notification, attempt);
          expect(deliveryPayloadJson(delivery)).toBe(JSON.stringify(deliveryPayload(delivery)));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('deliveryEventBytes', () => {
  it('encodes exactly the notification event of the delivery, whatever delivery came before', () => {
    const decoder = new TextDecoder();
    fc.assert(
      fc.property(notificationArbitrary, notificationArbitrary, (first, second) => {
        // The deliveries of two sends interleaved: each event is its own send's.
        const deliveries = [...first.attempts, ...second.attempts].flatMap((attempt, i) => [
          toDelivery(i < first.attempts.length ? first.notification : second.notification, attempt),
          toDelivery(first.notification, first.attempts[0] ?? attempt),
        ]);
        for (const delivery of deliveries) {
          const expected = `id: ${sseEventId(delivery.browserId, delivery.seq)}\nevent: notification\ndata: ${JSON.stringify(deliveryPayload(delivery))}\n\n`;
          expect(decoder.decode(deliveryEventBytes(delivery.browserId, delivery))).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('does not reuse the shared part for a delivery of the same send whose fields differ', () => {
    fc.assert(
      fc.property(notificationArbitrary, ({ notification, attempts }) => {
        fc.pre(attempts.length > 0);
        const delivery = toDelivery(notification, attempts[0]!);
        const other = { ...delivery, title: `${delivery.title}!`, data: { changed: true } };
        expect(deliveryPayloadJson(delivery)).toBe(JSON.stringify(deliveryPayload(delivery)));
        expect(deliveryPayloadJson(other)).toBe(JSON.stringify(deliveryPayload(other)));
      }),
      { numRuns: 100 },
    );
  });
});
