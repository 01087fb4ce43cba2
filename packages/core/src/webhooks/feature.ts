import type { Feature } from '../features.js';
import type { Mailer } from '../ports/mailer.js';
import type { OutboundSender } from '../ports/outbound.js';
import { type WebhookAuditEntry, webhookJobs } from './delivery.js';

/** Options of {@link webhooksFeature}. */
export interface WebhooksFeatureOptions {
  /** The outbound sender of the requests; its policy is the caller's to set (https, addresses, timeout). */
  sender: OutboundSender;
  /**
   * Accept endpoints at `http:` URLs, not only `https:` (the sender must allow them too):
   * development and tests only. @default false
   */
  allowHttp?: boolean;
  /** Tells a project's account that its endpoint was disabled for failing. @default none */
  mailer?: Mailer;
  /** Records an endpoint disabled for failing in the audit log (actor `system`). @default none */
  audit?: (entry: WebhookAuditEntry) => Promise<void>;
  /** A number in [0, 1) for the retries' jitter. @default Math.random */
  random?: () => number;
}

/**
 * Webhooks to the back end (docs/webhooks.md), on a sender of the caller's: `webhooks()` of
 * `@tidings/core/node` gives it Node's. The store records each event as a message for the
 * endpoints that want it, in the transaction of the change; this feature runs the `webhook` job
 * kind that signs and sends each message, retries it on its schedule, and disables an endpoint
 * that has failed for 3 days; and it says which endpoint URLs the operations accept.
 */
export function webhooksFeature(options: WebhooksFeatureOptions): Feature {
  const { sender } = options;
  return {
    name: 'webhooks',
    install({ options: instance }) {
      const { store, clock, logger, metrics } = instance;
      return {
        jobs: webhookJobs({
          store,
          sender,
          clock,
          logger,
          metrics,
          sealer: instance.sealer,
          ...(options.mailer ? { mailer: options.mailer } : {}),
          ...(options.audit ? { audit: options.audit } : {}),
          ...(options.random ? { random: options.random } : {}),
        }),
        settings: { webhooks: { allowHttp: options.allowHttp === true } },
        async close() {
          sender.close();
        },
      };
    },
  };
}
