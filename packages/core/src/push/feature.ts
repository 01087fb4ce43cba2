import type { Feature } from '../features.js';
import type { OutboundSender } from '../ports/outbound.js';
import { pushJobs } from './delivery.js';
import { type PushOptions, resolvePushOptions } from './options.js';
import { pushRoutes } from './routes.js';
import { pushJobsForSend } from './send-jobs.js';
import { createVapidPublicKeySource } from './vapid-keys.js';

/** Options of {@link webPushFeature}: the Web Push settings, and the sender its messages go out by. */
export interface WebPushFeatureOptions extends PushOptions {
  /** The outbound sender of the messages; its policy is the caller's to set (allowed hosts, http, addresses). */
  sender: OutboundSender;
}

/**
 * Web Push to browsers with no open tab (docs/web-push.md), on a sender of the caller's:
 * `webPush()` of `@tidings/core/node` gives it Node's. It adds the routes of a browser's push
 * subscription, the VAPID public key of the connect answers, a `push` job per live attempt whose
 * browser has a subscription (due after the grace), the job kind that sends them, and keeps a
 * subscribed browser from being reaped as stale for the retention. Bad settings throw here.
 */
export function webPushFeature(options: WebPushFeatureOptions): Feature {
  const settings = resolvePushOptions(options);
  const { sender } = options;
  return {
    name: 'push',
    install({ options: instance, hub }) {
      const { store, clock, logger, metrics } = instance;
      return {
        routes: pushRoutes(settings),
        jobs: pushJobs({
          store,
          vapidSubject: settings.vapidSubject,
          sender,
          clock,
          logger,
          hub,
          metrics,
          sealer: instance.sealer,
        }),
        // Read just before the send: a browser that subscribes meanwhile has a tab open, which the stream reaches.
        async sendJobs({ notification }) {
          const subscribed = await store.listPushSubscribedBrowsers({
            projectId: notification.projectId,
            recipient: notification.recipient,
          });
          if (subscribed.length === 0) return null;
          const browserIds = new Set(subscribed);
          return (created) => pushJobsForSend(created, browserIds, settings.graceMs);
        },
        keepsBrowsersSeenAfter: (now) => now - settings.retentionMs,
        vapidPublicKey: createVapidPublicKeySource(store, clock, instance.sealer),
        settings: { push: { vapidSubject: settings.vapidSubject } },
        async close() {
          sender.close();
        },
      };
    },
  };
}
