import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { TidingsError } from './errors.js';
import { webhooks } from './webhooks.js';

/** A delivery signed by the official standardwebhooks library. */
function delivery(secret: string, body: string, at = new Date()) {
  const id = 'msg_01jx';
  return {
    id,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
  };
}

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = JSON.stringify({ type: 'notification.completed', data: { id: 'ntf_1' } });

async function refusal(promise: Promise<unknown>): Promise<TidingsError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TidingsError);
  expect((error as TidingsError).code).toBe('WEBHOOK_INVALID');
  return error as TidingsError;
}

describe('webhooks.verify', () => {
  it('accepts a delivery signed by the standard library, from a Headers or a Node headers object, as text or bytes', async () => {
    const { headers } = delivery(secret, body);
    expect(await webhooks.verify(body, headers, secret)).toEqual(JSON.parse(body));
    expect(await webhooks.verify(new TextEncoder().encode(body), new Headers(headers), secret)).toEqual(
      JSON.parse(body),
    );
  });

  it('accepts any of several signatures, as while a secret is rolled', async () => {
    const { headers } = delivery(secret, body);
    const other = delivery('whsec_dGhpcyBpcyBhbm90aGVyIHNlY3JldCBvZiAzMiBieXRlcw==', body);
    const both = {
      ...headers,
      'webhook-signature': `${other.headers['webhook-signature']} ${headers['webhook-signature']}`,
    };
    expect(await webhooks.verify(body, both, secret)).toEqual(JSON.parse(body));
  });

  it('refuses a changed body, another secret, a changed id, and a signature of another version', async () => {
    const { headers } = delivery(secret, body);
    await refusal(webhooks.verify(body.replace('ntf_1', 'ntf_2'), headers, secret));
    await refusal(webhooks.verify(body, headers, 'whsec_dGhpcyBpcyBhbm90aGVyIHNlY3JldCBvZiAzMiBieXRlcw=='));
    await refusal(webhooks.verify(body, { ...headers, 'webhook-id': 'msg_other' }, secret));
    const v2 = headers['webhook-signature'].replace('v1,', 'v2,');
    await refusal(webhooks.verify(body, { ...headers, 'webhook-signature': v2 }, secret));
  });

  it('refuses a timestamp more than five minutes away, either way, and missing headers', async () => {
    const old = delivery(secret, body, new Date(Date.now() - 6 * 60_000));
    await refusal(webhooks.verify(body, old.headers, secret));
    const future = delivery(secret, body, new Date(Date.now() + 6 * 60_000));
    await refusal(webhooks.verify(body, future.headers, secret));
    const recent = delivery(secret, body, new Date(Date.now() - 4 * 60_000));
    expect(await webhooks.verify(body, recent.headers, secret)).toEqual(JSON.parse(body));
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { headers } = delivery(secret, body);
      const missing: Record<string, string> = { ...headers };
      delete missing[name];
      const error = await refusal(webhooks.verify(body, missing, secret));
      expect(error.message).toContain('missing');
    }
  });

  it('takes a secret that is not whsec_… for a mistake of the caller', async () => {
    const { headers } = delivery(secret, body);
    await expect(webhooks.verify(body, headers, 'sk_live_abc')).rejects.toThrow(TypeError);
  });
});
