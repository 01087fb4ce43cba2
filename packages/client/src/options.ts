import { isBrowserPage, sleep } from './runtime.js';

/** Options of `new TidingsClient(options)`. */
export interface TidingsClientOptions {
  /** Your secret key, `sk_live_…` or `sk_test_…`. A live key is refused in a web page. */
  apiKey: string;
  /** Where Tidings answers, e.g. `https://tidings.example.com` (without `/v1`; a path prefix is kept). */
  baseUrl: string;
  /**
   * Retries after a failure that is safe to retry (network error, timeout, 5xx, 429,
   * 409 IDEMPOTENCY_IN_PROGRESS); 0 turns retries off. Overridable per call.
   * @default 2
   */
  maxRetries?: number;
  /**
   * Time allowed for one request, answer included, in milliseconds; a request that takes longer
   * is aborted and counts as a network failure (retried). Overridable per call.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Bound of the first backoff draw, in milliseconds; each retry doubles it, up to `maxRetryDelayMs`.
   * @default 500
   */
  initialRetryDelayMs?: number;
  /**
   * Largest backoff bound, in milliseconds.
   * @default 8000
   */
  maxRetryDelayMs?: number;
  /**
   * Longest `Retry-After` the client waits for, in milliseconds. A retry never comes earlier than
   * `Retry-After`; when the server asks for a longer wait than this, the error is thrown at once
   * (with `retryAfter` set) rather than holding the call.
   * @default 60000
   */
  maxRetryAfterMs?: number;
  /**
   * Time between two polls of `waitUntilFinal`, in milliseconds; at least 1000, since every
   * poll counts against the key's rate limit.
   * @default 2000
   */
  pollIntervalMs?: number;
  /**
   * The `fetch` to use (a tracing wrapper, undici with a proxy agent, a test double).
   * @default globalThis.fetch, looked up at each call
   */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** Your application's name and version, put before the client's own in `User-Agent` (e.g. `shop/1.4`). */
  userAgent?: string;
  /**
   * Randomness, time and waiting, for tests.
   * @internal
   */
  environment?: Partial<ClientEnvironment>;
}

/** What the client takes from its runtime; tests replace it to run without real waits. */
export interface ClientEnvironment {
  random: () => number;
  now: () => number;
  sleep: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  /** True in a web page. */
  isBrowserPage: boolean;
}

/** {@link TidingsClientOptions} with every default applied. */
export interface ResolvedClientOptions {
  apiKey: string;
  mode: 'live' | 'test';
  /** Without a trailing slash. */
  baseUrl: string;
  maxRetries: number;
  timeoutMs: number;
  initialRetryDelayMs: number;
  maxRetryDelayMs: number;
  maxRetryAfterMs: number;
  pollIntervalMs: number;
  fetch: typeof fetch;
  headers: Record<string, string>;
  userAgent: string | null;
  environment: ClientEnvironment;
}

const API_KEY = /^sk_(live|test)_[A-Za-z0-9]{32}$/;

/** The client's version, sent in `User-Agent`. */
export const CLIENT_VERSION = '0.1.0';

function count(name: string, value: number | undefined, fallback: number, minimum: number): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < minimum) {
    throw new TypeError(`TidingsClient: ${name} must be an integer of at least ${minimum}`);
  }
  return resolved;
}

/** Applies the defaults and throws a `TypeError` on a misuse, at construction rather than later. */
export function resolveClientOptions(options: TidingsClientOptions): ResolvedClientOptions {
  const mode = API_KEY.exec(String(options?.apiKey))?.[1] as 'live' | 'test' | undefined;
  if (!mode) {
    throw new TypeError('TidingsClient: apiKey must be sk_live_ or sk_test_ followed by 32 letters and digits');
  }
  if (!/^https?:\/\/[^/]/i.test(String(options.baseUrl))) {
    throw new TypeError('TidingsClient: baseUrl must be an http(s) URL, e.g. https://tidings.example.com');
  }
  const environment: ClientEnvironment = {
    random: Math.random,
    now: () => Date.now(),
    sleep,
    isBrowserPage: isBrowserPage(),
    ...options.environment,
  };
  if (mode === 'live' && environment.isBrowserPage) {
    throw new TypeError(
      'TidingsClient: a live API key must never reach a web page, where anyone can read it. ' +
        'Call Tidings from your server, and connect pages with a connect token (@tidings/browser); ' +
        'a test key (sk_test_…) works here.',
    );
  }
  const initialRetryDelayMs = count('initialRetryDelayMs', options.initialRetryDelayMs, 500, 1);
  return {
    apiKey: options.apiKey,
    mode,
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    maxRetries: count('maxRetries', options.maxRetries, 2, 0),
    timeoutMs: count('timeoutMs', options.timeoutMs, 30_000, 1),
    initialRetryDelayMs,
    maxRetryDelayMs: count('maxRetryDelayMs', options.maxRetryDelayMs, 8000, initialRetryDelayMs),
    maxRetryAfterMs: count('maxRetryAfterMs', options.maxRetryAfterMs, 60_000, 0),
    pollIntervalMs: count('pollIntervalMs', options.pollIntervalMs, 2000, 1000),
    // Looked up at each call, so that a fetch patched after construction (tracing, tests) is used.
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    headers: { ...options.headers },
    userAgent: options.userAgent ?? null,
    environment,
  };
}
