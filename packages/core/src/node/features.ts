import type { Feature } from '../features.js';
import type { OutboundLookup, OutboundSender } from '../ports/outbound.js';
import { webPushFeature } from '../push/feature.js';
import { checkAllowedHosts, DEFAULT_PUSH_HOSTS, type PushOptions } from '../push/options.js';
import { WEBHOOK_RESPONSE_EXCERPT_BYTES, WEBHOOK_TIMEOUT_MS } from '../webhooks/delivery.js';
import { type WebhooksFeatureOptions, webhooksFeature } from '../webhooks/feature.js';
import { createOutboundSender } from './outbound.js';

/** Options of {@link webhooks}. */
export interface WebhooksOptions extends Omit<WebhooksFeatureOptions, 'sender'> {
  /**
   * Send to, and accept endpoints at, `http:` URLs, not only `https:`: development and tests
   * only. @default false
   */
  allowHttp?: boolean;
  /**
   * Send to private and loopback addresses (and `localhost`): development, tests, and deployments
   * whose customers are trusted, as it lets an endpoint reach this machine's network. @default false
   */
  allowPrivateAddresses?: boolean;
  /** The whole request's timeout. @default 15000 */
  timeoutMs?: number;
  /** Replaces DNS resolution (tests). */
  lookup?: OutboundLookup;
  /** Replaces the sender (tests); `allowPrivateAddresses`, `timeoutMs` and `lookup` then do nothing. */
  sender?: OutboundSender;
}

/**
 * Webhooks to the back end (docs/webhooks.md), sent from this process with Node's outbound
 * sender: https only, public addresses only, no redirects, a 15 s timeout. Give it to
 * `createTidings({ features })`; every instance over one store may send them.
 *
 * @example
 * createTidings({ store, features: [inbox(), requestLog(), webhooks()] });
 */
export function webhooks(options: WebhooksOptions = {}): Feature {
  const { allowPrivateAddresses, timeoutMs, lookup, sender, ...rest } = options;
  return webhooksFeature({
    ...rest,
    sender:
      sender ??
      createOutboundSender({
        allowHttp: options.allowHttp === true,
        allowPrivateAddresses: allowPrivateAddresses === true,
        timeoutMs: timeoutMs ?? WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: 4 * WEBHOOK_RESPONSE_EXCERPT_BYTES,
        ...(lookup === undefined ? {} : { lookup }),
      }),
  });
}

/** Options of {@link webPush}. */
export interface WebPushOptions extends PushOptions {
  /** The whole request's timeout. @default 15000 */
  timeoutMs?: number;
  /** Replaces DNS resolution (tests). */
  lookup?: OutboundLookup;
  /** Certificates (PEM) trusted besides Node's own: a push service behind a private authority. @default none */
  ca?: string | readonly string[];
  /** Replaces the sender (tests); the policy options then do nothing but check the subscriptions' endpoints. */
  sender?: OutboundSender;
}

/**
 * Web Push to browsers with no open tab (docs/web-push.md), sent from this process with Node's
 * outbound sender, over HTTP/2 to push services that offer it (one connection per service).
 * Turned on by its VAPID subject; every instance over one store may send pushes.
 *
 * @example
 * createTidings({ store, features: [inbox(), requestLog(), webPush({ vapidSubject: 'mailto:ops@example.com' })] });
 */
export function webPush(options: WebPushOptions): Feature {
  const { timeoutMs, lookup, ca, sender, ...push } = options;
  return webPushFeature({
    ...push,
    sender:
      sender ??
      createOutboundSender({
        allowHttp: push.allowHttp === true,
        allowPrivateAddresses: push.allowPrivateAddresses === true,
        allowedHosts: checkAllowedHosts(push.allowedHosts ?? DEFAULT_PUSH_HOSTS),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(lookup === undefined ? {} : { lookup }),
        ...(ca === undefined ? {} : { ca }),
        // Push services speak HTTP/2: one connection per service carries every message at once.
        http2: true,
      }),
  });
}
