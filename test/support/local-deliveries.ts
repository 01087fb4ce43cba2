// Web Push and webhooks of an embedded Tidings, sent to a push service and a webhook receiver of
// the tests' own on 127.0.0.1: the options that run both job kinds in the instance, and a browser
// whose stream has closed but whose push subscription is at that push service.
import type { Store, TidingsOptions } from '@tidings/core';
import { inbox, requestLog } from '@tidings/core';
import { webhooks, webPush } from '@tidings/core/node';
import type { TestPushService } from './push-service.js';

/** Web Push to a local service over http:, pushed 200 ms after a send that no stream took. */
export const LOCAL_PUSH = {
  vapidSubject: 'mailto:ops@example.com',
  allowedHosts: ['127.0.0.1'],
  allowHttp: true,
  allowPrivateAddresses: true,
  graceMs: 200,
};

/**
 * Options of `createTidings` that send Web Push and webhooks from this instance to local services,
 * beside the default features.
 */
export function localDeliveries(): Pick<TidingsOptions, 'features' | 'jobs'> {
  return {
    features: [inbox(), requestLog(), webPush(LOCAL_PUSH), webhooks({ allowHttp: true, allowPrivateAddresses: true })],
    jobs: { pollMs: 100 },
  };
}

/**
 * Gives the browser a push subscription at `service`, then closes its stream: a send to its
 * recipient is then pushed to it. Returns the pushes the service has received for it.
 */
export async function subscribeThenClose(
  store: Pick<Store, 'putPushSubscription'>,
  service: TestPushService,
  browser: { browserId: string; stream: { cancel(): Promise<void> } },
): Promise<() => TestPushService['received']> {
  const subscription = service.subscribe();
  const saved = await store.putPushSubscription({
    browserId: browser.browserId,
    endpoint: subscription.endpoint,
    p256dh: subscription.p256dh,
    auth: subscription.auth,
    expiresAt: null,
    now: Date.now(),
  });
  if (saved.kind !== 'saved') throw new Error(`the push subscription was not saved: ${saved.kind}`);
  await browser.stream.cancel();
  return () => service.received.filter((push) => push.subscriptionId === subscription.id);
}
