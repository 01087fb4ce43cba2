import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, isWellFormedWebhookSecret, signWebhook, webhookSignature } from './signature.js';

describe('webhook signatures (Standard Webhooks)', () => {
  it('gives the signature of the specification’s own example', () => {
    const signature = webhookSignature(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs as the official standardwebhooks library does, for any payload', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.stringMatching(/^[A-Za-z0-9_]{1,40}$/), (payload, id) => {
        const secret = generateWebhookSecret();
        const now = Math.floor(Date.now() / 1000);
        const headers = signWebhook({ id, timestampSeconds: now, payload, secrets: [secret] });
        // verify() parses the payload as JSON: the signature itself is compared on every payload.
        expect(headers['webhook-signature']).toBe(new Webhook(secret).sign(id, new Date(now * 1000), payload));
      }),
      { numRuns: 200 },
    );
  });

  it('signs with every secret while one is rolled, and either verifies', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const payload = JSON.stringify({ type: 'notification.completed' });
    const headers = signWebhook({
      id: 'msg_1',
      timestampSeconds: Math.floor(Date.now() / 1000),
      payload,
      secrets: [current, previous],
    });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(payload, { ...headers })).toEqual({ type: 'notification.completed' });
    }
    expect(() => new Webhook(generateWebhookSecret()).verify(payload, { ...headers })).toThrow();
  });

  it('makes secrets of 32 random bytes, and refuses a malformed one or none', () => {
    const secret = generateWebhookSecret();
    expect(isWellFormedWebhookSecret(secret)).toBe(true);
    expect(atob(secret.slice('whsec_'.length))).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
    expect(() => webhookSignature('sk_live_x', 'msg_1', 1, '{}')).toThrow(TypeError);
    expect(() => signWebhook({ id: 'msg_1', timestampSeconds: 1, payload: '{}', secrets: [] })).toThrow(TypeError);
  });
});
