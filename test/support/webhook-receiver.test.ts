import { newId } from '@tidings/core';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { startWebhookReceiver } from './webhook-receiver.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = JSON.stringify({
  type: 'webhook.test',
  timestamp: new Date().toISOString(),
  data: { endpoint_id: newId('whe') },
});

function post(url: string, init: { id?: string; secret?: string; payload?: string; signal?: AbortSignal } = {}) {
  const id = init.id ?? newId('msg');
  const payload = init.payload ?? body;
  const now = new Date();
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    signal: init.signal,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Tidings',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(init.secret ?? SECRET).sign(id, now, payload),
    },
    body: payload,
  });
}

describe('the test webhook receiver', () => {
  it('records a message that verifies and answers 204', async () => {
    const receiver = await startWebhookReceiver();
    receiver.setSecret('a', SECRET);
    const response = await post(receiver.endpointUrl('a'), { id: newId('msg') });
    expect(response.status).toBe(204);
    expect(receiver.receivedBy('a')).toEqual([
      expect.objectContaining({ endpoint: 'a', type: 'webhook.test', signatures: 1, data: JSON.parse(body).data }),
    ]);
    expect(receiver.rejected).toEqual([]);
  });

  it('refuses a wrong signature, an unknown endpoint and a body off the document', async () => {
    const receiver = await startWebhookReceiver();
    receiver.setSecret('a', SECRET);
    expect((await post(receiver.endpointUrl('a'), { secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).status).toBe(
      401,
    );
    expect((await post(receiver.endpointUrl('b'))).status).toBe(404);
    const off = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: {} });
    expect((await post(receiver.endpointUrl('a'), { payload: off })).status).toBe(400);
    expect(receiver.received).toEqual([]);
    expect(receiver.rejected.map((rejected) => rejected.reason)).toEqual([
      expect.stringMatching(/does not verify/),
      expect.stringMatching(/no endpoint/),
      expect.stringMatching(/endpoint_id/),
    ]);
  });

  it('answers as scripted: 500, 429 with Retry-After, a redirect, no answer; then 204', async () => {
    const receiver = await startWebhookReceiver();
    receiver.setSecret('a', SECRET);
    receiver.script('a', [
      { status: 500 },
      { status: 429, retryAfter: '7' },
      { status: 307, location: receiver.endpointUrl('elsewhere') },
      { hang: true },
    ]);
    expect((await post(receiver.endpointUrl('a'))).status).toBe(500);
    const limited = await post(receiver.endpointUrl('a'));
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);
    const redirected = await post(receiver.endpointUrl('a'));
    expect([redirected.status, redirected.headers.get('location')]).toEqual([307, receiver.endpointUrl('elsewhere')]);
    await expect(post(receiver.endpointUrl('a'), { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect((await post(receiver.endpointUrl('a'))).status).toBe(204);
    expect(receiver.requests.map((request) => request.answer)).toEqual([500, 429, 307, 'hang', 204]);
    expect(receiver.received).toHaveLength(1);
  });

  it('drops every connection while down, or answers as told', async () => {
    const receiver = await startWebhookReceiver();
    receiver.setSecret('a', SECRET);
    receiver.setDown(true);
    await expect(post(receiver.endpointUrl('a'))).rejects.toThrow();
    receiver.setDown({ status: 503, retryAfter: '2' });
    const unavailable = await post(receiver.endpointUrl('a'));
    expect([unavailable.status, unavailable.headers.get('retry-after')]).toEqual([503, '2']);
    receiver.setDown(false);
    expect((await post(receiver.endpointUrl('a'))).status).toBe(204);
    expect(receiver.requests.map((request) => request.answer)).toEqual(['dropped', 503, 204]);
  });
});
