import { describe, expect, it } from 'vitest';
import { acceptedAttempt } from '../delivery/accepted-attempt.js';
import { attemptObject, notificationObject } from '../delivery/serialize.js';
import type { NotificationRecord, NotificationWithAttempts } from '../ports/records.js';
import type { WebhookEndpointRecord } from '../ports/store.js';
import { anyEndpointWants, endpointWants, webhookEventsOf, webhookJobOf, webhookMessagesOf } from './events.js';

const T0 = Date.UTC(2026, 10, 27, 10);

function notification(mode: 'live' | 'test', finals: boolean[]): NotificationWithAttempts {
  const record: NotificationRecord = {
    id: `ntf_${mode}`,
    projectId: 'proj_1',
    mode,
    recipient: 'ann',
    title: 'Hi',
    body: null,
    url: null,
    icon: null,
    tag: null,
    data: null,
    ttl: 60,
    createdAt: T0,
    expiresAt: T0 + 60_000,
    apiKeyId: null,
    requestId: null,
    idempotencyKey: null,
  };
  return {
    notification: record,
    attempts: finals.map((final, i) => ({
      ...acceptedAttempt(record, `att_${mode}_${i}`, `brw_${i}`, i + 1),
      final,
      status: final ? 'delivered' : 'sent',
    })),
  };
}

function endpoint(events: string[], status: 'enabled' | 'disabled' = 'enabled'): WebhookEndpointRecord {
  return {
    id: `whe_${events.join('_')}_${status}`,
    projectId: 'proj_1',
    url: 'https://example.com/hook',
    description: null,
    events,
    status,
    disabledReason: null,
    secret: 'whsec_x',
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdAt: T0,
    updatedAt: T0,
    failingSince: null,
  };
}

describe('webhookEventsOf', () => {
  it('makes one update per attempt changed, then the notification completed once its last attempt ended', () => {
    const live = notification('live', [true, true]);
    const events = webhookEventsOf({
      changes: [
        { kind: 'attempt', attemptId: 'att_live_0', notificationId: 'ntf_live', ended: true },
        { kind: 'attempt', attemptId: 'att_live_0', notificationId: 'ntf_live', ended: false },
        { kind: 'attempt', attemptId: 'att_live_1', notificationId: 'ntf_live', ended: true },
        { kind: 'browser-connected', browserId: 'brw_9', recipient: 'bob', at: T0 },
      ],
      notifications: new Map([['ntf_live', live]]),
      now: T0 + 5,
    });
    expect(events.map((event) => [event.type, event.orderKey])).toEqual([
      ['notification.attempt.updated', 'ntf_live'],
      ['notification.attempt.updated', 'ntf_live'],
      ['browser.connected', 'brw_9'],
      ['notification.completed', 'ntf_live'],
    ]);
    expect(events[0]).toEqual({
      type: 'notification.attempt.updated',
      timestamp: new Date(T0 + 5).toISOString(),
      data: { notification_id: 'ntf_live', recipient: 'ann', attempt: attemptObject(live.attempts[0]!) },
      orderKey: 'ntf_live',
    });
    expect(events[3]!.data).toEqual(notificationObject(live));
  });

  it('makes no completion while an attempt is pending, nor when no attempt ended, and nothing for test mode', () => {
    const pending = notification('live', [true, false]);
    const test = notification('test', [true]);
    const events = webhookEventsOf({
      changes: [
        { kind: 'attempt', attemptId: 'att_live_0', notificationId: 'ntf_live', ended: true },
        { kind: 'attempt', attemptId: 'att_test_0', notificationId: 'ntf_test', ended: true },
      ],
      notifications: new Map([
        ['ntf_live', pending],
        ['ntf_test', test],
      ]),
      now: T0,
    });
    expect(events.map((event) => event.type)).toEqual(['notification.attempt.updated']);
    const displayedOnly = webhookEventsOf({
      changes: [{ kind: 'attempt', attemptId: 'att_live_0', notificationId: 'ntf_live', ended: false }],
      notifications: new Map([['ntf_live', notification('live', [true])]]),
      now: T0,
    });
    expect(displayedOnly.map((event) => event.type)).toEqual(['notification.attempt.updated']);
  });

  it('names the reason of a disconnection as the store distinguishes it', () => {
    const events = webhookEventsOf({
      changes: [
        { kind: 'browser-disconnected', browserId: 'brw_1', recipient: 'ann', at: T0, reason: 'browser_disconnected' },
        { kind: 'browser-disconnected', browserId: 'brw_2', recipient: 'ann', at: T0, reason: 'browser_stale' },
      ],
      notifications: new Map(),
      now: T0,
    });
    expect(events.map((event) => (event.data as { reason: string }).reason)).toEqual(['disconnected', 'stale']);
  });
});

describe('the endpoints of an event', () => {
  it('sends each event to every enabled endpoint that wants its type, in the order of the events', () => {
    const all = endpoint(['*']);
    const connected = endpoint(['browser.connected']);
    const off = endpoint(['*'], 'disabled');
    const messages = webhookMessagesOf({
      endpoints: [all, connected, off],
      changes: [
        { kind: 'browser-connected', browserId: 'brw_1', recipient: 'ann', at: T0 },
        { kind: 'browser-disconnected', browserId: 'brw_1', recipient: 'ann', at: T0, reason: 'browser_stale' },
      ],
      notifications: new Map(),
      now: T0,
    });
    expect(messages.map((message) => [message.endpointId, message.eventType])).toEqual([
      [all.id, 'browser.connected'],
      [connected.id, 'browser.connected'],
      [all.id, 'browser.disconnected'],
    ]);
    expect(messages[0]!.id).toMatch(/^msg_/);
    expect(endpointWants(connected, 'browser.disconnected')).toBe(false);
    expect(endpointWants(off, 'browser.connected')).toBe(false);
    expect(
      anyEndpointWants([connected], [{ kind: 'attempt', attemptId: 'att_1', notificationId: 'ntf_1', ended: true }]),
    ).toBe(false);
    expect(
      anyEndpointWants(
        [endpoint(['notification.completed'])],
        [{ kind: 'attempt', attemptId: 'att_1', notificationId: 'ntf_1', ended: true }],
      ),
    ).toBe(true);
  });

  it('orders an endpoint’s messages by their notification or browser', () => {
    expect(webhookJobOf({ id: 'msg_1', projectId: 'proj_1', endpointId: 'whe_1', orderKey: 'ntf_1' })).toEqual({
      kind: 'webhook',
      key: 'webhook:whe_1:ntf_1',
      projectId: 'proj_1',
      payload: { messageId: 'msg_1' },
    });
  });
});
