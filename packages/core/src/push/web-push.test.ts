import { createECDH } from 'node:crypto';
import { checkVapid, startTestPushService } from '@tidings/test-support/push-service.js';
import ece from 'http_ece';
import { describe, expect, it } from 'vitest';
import { createOutboundSender, type OutboundResult } from '../node/outbound.js';
import {
  generateVapidKeys,
  MAX_PUSH_PLAINTEXT_BYTES,
  type PushMessage,
  pushOutcome,
  pushRequest,
  pushTopic,
  type VapidIdentity,
} from './web-push.js';

// RFC 8291 section 5 (and Appendix A): "When I grow up, I want to be a watermelon", encrypted by an
// application server with a fixed key pair and salt for a user agent's keys.
const RFC = {
  plaintext: 'When I grow up, I want to be a watermelon',
  asPrivate: 'yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw',
  uaPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
  uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  auth: 'BTBZMqHH6r4Tts7J_aSIgg',
  salt: 'DGv6ra1nlYgDCS1FRnbzlw',
  body: 'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
};

const sender = createOutboundSender({ allowHttp: true, allowPrivateAddresses: true, timeoutMs: 5000 });

function vapid(): VapidIdentity {
  return { ...generateVapidKeys(), subject: 'mailto:ops@example.com' };
}

function message(subscription: PushMessage['subscription'], overrides: Partial<PushMessage> = {}): PushMessage {
  return { subscription, payload: '{"title":"Hello"}', vapid: vapid(), ttlSeconds: 3600, ...overrides };
}

describe('the payload encryption (RFC 8291, aes128gcm)', () => {
  it("makes RFC 8291's example message byte for byte from its keys and salt", () => {
    const applicationServer = createECDH('prime256v1');
    applicationServer.setPrivateKey(Buffer.from(RFC.asPrivate, 'base64url'));
    const body = ece.encrypt(Buffer.from(RFC.plaintext), {
      version: 'aes128gcm',
      privateKey: applicationServer,
      dh: RFC.uaPublic,
      authSecret: RFC.auth,
      salt: RFC.salt,
      rs: 4096,
    });
    expect(body.toString('base64url')).toBe(RFC.body);
  });

  it("reads RFC 8291's example message with the user agent's keys, as the test push service does", () => {
    const userAgent = createECDH('prime256v1');
    userAgent.setPrivateKey(Buffer.from(RFC.uaPrivate, 'base64url'));
    expect(userAgent.getPublicKey().toString('base64url')).toBe(RFC.uaPublic);
    const plaintext = ece.decrypt(Buffer.from(RFC.body, 'base64url'), {
      version: 'aes128gcm',
      privateKey: userAgent,
      authSecret: RFC.auth,
    });
    expect(plaintext.toString('utf8')).toBe(RFC.plaintext);
  });
});

describe('pushRequest', () => {
  it('reaches a push service that checks the VAPID token and decrypts the payload', async () => {
    const service = await startTestPushService();
    const subscription = service.subscribe();
    const identity = vapid();
    const request = pushRequest(
      message(subscription, { vapid: identity, ttlSeconds: 90, urgency: 'high', topic: pushTopic('chat-42') }),
    );
    expect(request.headers['Content-Encoding']).toBe('aes128gcm');
    const result = await sender.send(request);
    expect(pushOutcome(result)).toMatchObject({ kind: 'accepted', status: 201 });
    expect(service.rejected).toEqual([]);
    expect(service.received).toEqual([
      {
        subscriptionId: subscription.id,
        payload: '{"title":"Hello"}',
        ttl: 90,
        urgency: 'high',
        topic: pushTopic('chat-42'),
        subject: 'mailto:ops@example.com',
        vapidKey: identity.publicKey,
      },
    ]);
  });

  it('encrypts afresh each time: two requests of one message differ', () => {
    const subscription = { endpoint: 'https://push.example.com/x', ...keysOnly() };
    const one = message(subscription);
    expect(Buffer.from(pushRequest(one).body).equals(Buffer.from(pushRequest(one).body))).toBe(false);
  });

  it(`carries ${MAX_PUSH_PLAINTEXT_BYTES} bytes in one message of at most 4,096 and refuses one byte more`, async () => {
    const service = await startTestPushService();
    const subscription = service.subscribe();
    const largest = pushRequest(message(subscription, { payload: 'x'.repeat(MAX_PUSH_PLAINTEXT_BYTES) }));
    expect(largest.body.length).toBeLessThanOrEqual(4096);
    expect(pushOutcome(await sender.send(largest)).kind).toBe('accepted');
    expect(service.received[0]?.payload).toHaveLength(MAX_PUSH_PLAINTEXT_BYTES);
    expect(() => pushRequest(message(subscription, { payload: 'x'.repeat(MAX_PUSH_PLAINTEXT_BYTES + 1) }))).toThrow(
      RangeError,
    );
  });

  it('is refused by the push service when signed with another key than the one it names', async () => {
    const service = await startTestPushService();
    const subscription = service.subscribe();
    const request = pushRequest(message(subscription));
    const other = pushRequest(message(subscription));
    // The token of one request with the key of another.
    const token = /t=([^,]+)/.exec(request.headers.Authorization ?? '')?.[1];
    const key = /k=(.+)$/.exec(other.headers.Authorization ?? '')?.[1];
    const forged = { ...request, headers: { ...request.headers, Authorization: `vapid t=${token}, k=${key}` } };
    expect(pushOutcome(await sender.send(forged))).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('401'),
    });
    expect(service.rejected).toEqual([
      { subscriptionId: subscription.id, status: 401, reason: 'the token is not signed by k' },
    ]);
    expect(service.received).toEqual([]);
  });

  it('answers 429 with Retry-After, then 201, as the script says', async () => {
    const service = await startTestPushService();
    const subscription = service.subscribe();
    service.script(subscription.id, [{ status: 429, retryAfter: '7' }]);
    const first = pushOutcome(await sender.send(pushRequest(message(subscription))));
    expect(first).toEqual({ kind: 'retry', retryAfterMs: 7000, reason: 'push service answered 429' });
    expect(pushOutcome(await sender.send(pushRequest(message(subscription)))).kind).toBe('accepted');
    expect(service.answered.map((a) => a.status)).toEqual([429, 201]);
  });

  it('reads a subscription the user revoked as gone (410)', async () => {
    const service = await startTestPushService();
    const subscription = service.subscribe();
    service.expire(subscription.id);
    expect(pushOutcome(await sender.send(pushRequest(message(subscription))))).toEqual({ kind: 'gone', status: 410 });
  });
});

describe('pushOutcome', () => {
  const answered = (status: number, body = '', retryAfterMs: number | null = null): OutboundResult => ({
    kind: 'answered',
    status,
    headers: {},
    body,
    retryAfterMs,
    durationMs: 3,
  });

  it.each([
    [answered(201), { kind: 'accepted', status: 201, durationMs: 3 }],
    [answered(202), { kind: 'accepted', status: 202, durationMs: 3 }],
    [answered(404), { kind: 'gone', status: 404 }],
    [answered(410), { kind: 'gone', status: 410 }],
    [answered(429, '', 2000), { kind: 'retry', retryAfterMs: 2000, reason: 'push service answered 429' }],
    [answered(503), { kind: 'retry', retryAfterMs: null, reason: 'push service answered 503' }],
    [answered(408), { kind: 'retry', retryAfterMs: null, reason: 'push service answered 408' }],
    [answered(413), { kind: 'failed', reason: 'payload too large for the push service (413)' }],
    [answered(400, ' bad TTL \n'), { kind: 'failed', reason: 'push service refused the message (400): bad TTL' }],
    [answered(403), { kind: 'failed', reason: 'push service refused the VAPID credentials (403)' }],
    [answered(301), { kind: 'failed', reason: 'push service redirected (301), not followed' }],
    [
      { kind: 'refused', reason: 'address 10.0.0.1 is not public' },
      { kind: 'failed', reason: 'endpoint refused: address 10.0.0.1 is not public' },
    ],
    [
      { kind: 'failed', reason: 'timeout', message: 'no answer in 15000 ms', durationMs: 15000 },
      { kind: 'retry', retryAfterMs: null, reason: 'timeout' },
    ],
  ] as [OutboundResult, unknown][])('%# reads %o', (result, expected) => {
    expect(pushOutcome(result)).toEqual(expected);
  });
});

describe('pushTopic', () => {
  it('is 32 characters of the URL-safe alphabet, the same for a key and different for another', () => {
    const topic = pushTopic('conversation:7f3a-✓');
    expect(topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(pushTopic('conversation:7f3a-✓')).toBe(topic);
    expect(pushTopic('conversation:7f3b-✓')).not.toBe(topic);
  });
});

describe("the test push service's VAPID check", () => {
  it('refuses a token for another audience, and an expired one', () => {
    const subscription = { endpoint: 'https://push.example.com/x', ...keysOnly() };
    const authorization = pushRequest(message(subscription)).headers.Authorization ?? '';
    expect(checkVapid(authorization, 'https://push.example.com')).toMatchObject({ subject: 'mailto:ops@example.com' });
    expect(checkVapid(authorization, 'https://other.example.com')).toEqual({
      error: 'aud https://push.example.com is not https://other.example.com',
    });
    expect(checkVapid(authorization, 'https://push.example.com', Date.now() + 25 * 3600 * 1000)).toEqual({
      error: 'exp is not within the next 24 hours',
    });
  });
});

function keysOnly() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: Buffer.from('0123456789abcdef').toString('base64url'),
  };
}
