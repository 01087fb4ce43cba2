/**
 * Web Push settings of an instance (docs/web-push.md): the VAPID subject that turns it on, the
 * push services a subscription may point at, and the grace before a message goes out.
 */

/**
 * The hosts of the push services of the browsers people use: Chrome, Edge, Opera and other
 * Chromium browsers (Firebase Cloud Messaging), Firefox (Mozilla's autopush), Safari on macOS and
 * iOS (Apple), and Edge's older Windows push service. `*.` matches any name under the domain.
 */
export const DEFAULT_PUSH_HOSTS: readonly string[] = Object.freeze([
  'fcm.googleapis.com',
  'android.googleapis.com',
  'updates.push.services.mozilla.com',
  '*.push.apple.com',
  '*.notify.windows.com',
]);

/** How long a message waits after a send before it is pushed (docs/web-push.md#the-grace). */
export const DEFAULT_PUSH_GRACE_MS = 4_000;

/** How long a browser with a push subscription is kept without a stream or poll. */
export const DEFAULT_PUSH_RETENTION_MS = 30 * 86_400_000;

/** Options of Web Push: `push` of `createTidings`. */
export interface PushOptions {
  /**
   * The contact push services see in the VAPID token: `mailto:ops@example.com` or an `https:`
   * URL. Required: without it Web Push is off.
   */
  vapidSubject: string;
  /**
   * Hosts a subscription's endpoint may be on: exact names, or `*.example.com` for any name under
   * it. @default DEFAULT_PUSH_HOSTS, the push services of the major browsers
   */
  allowedHosts?: readonly string[];
  /**
   * Accept `http:` endpoints, for a local push service in development and tests only.
   * @default false
   */
  allowHttp?: boolean;
  /**
   * Let the `push` job kind send to private and loopback addresses (a local push service), for
   * development and tests only: the outbound sender then no longer guards this machine's network.
   * @default false
   */
  allowPrivateAddresses?: boolean;
  /**
   * How long after a send a browser's Web Push message waits, so that an open tab confirms
   * delivery over its stream first and nothing is shown twice. @default 4000
   */
  graceMs?: number;
  /**
   * How long a browser with a push subscription stays connected without a stream or poll; then
   * it is disconnected as stale and its subscription dropped. @default 30 days
   */
  retentionMs?: number;
}

/** {@link PushOptions} with every default applied. */
export interface ResolvedPushOptions {
  vapidSubject: string;
  allowedHosts: readonly string[];
  allowHttp: boolean;
  allowPrivateAddresses: boolean;
  graceMs: number;
  retentionMs: number;
}

/** Throws unless `subject` is a `mailto:` address or an `https:` URL, as RFC 8292 asks. */
export function checkVapidSubject(subject: unknown): string {
  if (typeof subject !== 'string') throw new TypeError('The VAPID subject must be a mailto: or https: URL');
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    throw new TypeError(`The VAPID subject must be a mailto: or https: URL, got ${JSON.stringify(subject)}`);
  }
  if (url.protocol === 'mailto:' ? url.pathname.includes('@') : url.protocol === 'https:') return subject;
  throw new TypeError(`The VAPID subject must be a mailto: address or an https: URL, got ${JSON.stringify(subject)}`);
}

/** Throws unless each entry is a host name, or `*.` and a host name. */
export function checkAllowedHosts(hosts: unknown): readonly string[] {
  if (!Array.isArray(hosts)) throw new TypeError('The push allow-list must be an array of host names');
  return Object.freeze(
    hosts.map((host) => {
      if (
        typeof host !== 'string' ||
        !/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(host)
      ) {
        throw new TypeError(`Not a host name for the push allow-list: ${JSON.stringify(host)}`);
      }
      return host.toLowerCase();
    }),
  );
}

/** Applies defaults and checks each field; throws on bad configuration. */
export function resolvePushOptions(options: PushOptions): ResolvedPushOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('Tidings option push needs vapidSubject');
  const graceMs = options.graceMs ?? DEFAULT_PUSH_GRACE_MS;
  const retentionMs = options.retentionMs ?? DEFAULT_PUSH_RETENTION_MS;
  if (!Number.isInteger(graceMs) || graceMs < 0)
    throw new TypeError('Tidings option push.graceMs must be an integer ≥ 0');
  if (!Number.isInteger(retentionMs) || retentionMs < 1) {
    throw new TypeError('Tidings option push.retentionMs must be a positive integer');
  }
  return {
    vapidSubject: checkVapidSubject(options.vapidSubject),
    allowedHosts: checkAllowedHosts(options.allowedHosts ?? DEFAULT_PUSH_HOSTS),
    allowHttp: options.allowHttp === true,
    allowPrivateAddresses: options.allowPrivateAddresses === true,
    graceMs,
    retentionMs,
  };
}

/** True when `host` is on the list: equal to an entry, or under the domain of a `*.` entry. */
export function hostAllowed(host: string, allowedHosts: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowedHosts.some((entry) =>
    entry.startsWith('*.') ? name.endsWith(entry.slice(1)) && name.length > entry.length - 1 : name === entry,
  );
}

/**
 * Why an endpoint may not be used, or null when it may: it must be an absolute `https:` URL
 * (or `http:` with `allowHttp`), without credentials, on an allowed host.
 */
export function endpointRefusal(endpoint: string, options: Pick<ResolvedPushOptions, 'allowedHosts' | 'allowHttp'>) {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'The endpoint is not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(options.allowHttp && url.protocol === 'http:')) {
    return 'The endpoint must be an https: URL';
  }
  if (url.username || url.password) return 'The endpoint must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!hostAllowed(host, options.allowedHosts)) return `The push service ${host} is not on this server's allow-list`;
  return null;
}
