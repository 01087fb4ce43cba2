import type { TidingsError } from './errors.js';
import type { ElectionChannel, ElectionLocks } from './tab-election.js';
import type { TidingsNotification, TidingsStatus, TidingsStatusDetail } from './types.js';

/** What the SDK needs from the page; tests replace parts of it. */
export interface TidingsHost {
  addEventListener(type: string, listener: (event: Event) => void): void;
  removeEventListener(type: string, listener: (event: Event) => void): void;
  document?: {
    visibilityState: string;
    addEventListener(type: string, listener: (event: Event) => void): void;
    removeEventListener(type: string, listener: (event: Event) => void): void;
  };
  navigator?: {
    sendBeacon?: (url: string, data: string) => boolean;
    locks?: ElectionLocks;
    serviceWorker?: ServiceWorkerContainer;
  };
  /** Present where the browser has Web Push. */
  PushManager?: unknown;
  indexedDB?: IDBFactory;
  BroadcastChannel?: new (name: string) => ElectionChannel;
  location?: { href: string };
  Notification?: typeof Notification;
  open?: (url: string, target?: string, features?: string) => unknown;
  focus?: () => void;
}

/** Clocks, timers, randomness and the page, replaceable so that tests run without sleeps. */
export interface TidingsEnvironment {
  setTimeout: (callback: () => void, milliseconds: number) => unknown;
  clearTimeout: (handle: unknown) => void;
  now: () => number;
  random: () => number;
  /** The page (`window`), or null outside a browser. */
  host: TidingsHost | null;
}

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** The Tidings server, e.g. `https://tidings.example.com` (no `/v1`). */
  baseUrl: string;
  /** A connect token (`ct_…`) from the page's own back end. Either this or `getToken` is required. */
  token?: string;
  /**
   * Fetches a fresh connect token from the page's back end. Called when there is no `token`, and
   * once after a 401 (an expired token); if it throws, or the new token is refused too, the
   * connection closes with an error.
   */
  getToken?: () => Promise<string>;
  /**
   * The recipient the tokens are minted for (your id of the signed-in user). With it, the tabs of
   * one browser that show this recipient share one connection: one tab holds it and hands every
   * notification to the others. Without it, or where the browser lacks Web Locks or
   * BroadcastChannel, each tab connects on its own.
   */
  recipient?: string;
  /** Called once per delivery attempt, in order; duplicates after a reconnect are dropped. */
  onNotification: (notification: TidingsNotification) => void;
  /** Called on every status change. */
  onStatus?: (status: TidingsStatus, detail?: TidingsStatusDetail) => void;
  /** Called on every failure, the ones the SDK retries (`fatal: false`) and the fatal one. */
  onError?: (error: TidingsError) => void;
  /**
   * Sends a `delivered` receipt for every notification handed to `onNotification`, in batches.
   * @default true
   */
  autoDelivered?: boolean;
  /**
   * Also shows each notification through the Notification API when the page already has
   * permission (the SDK never asks for it); clicking it sends a `clicked` receipt and opens `url`.
   * @default false
   */
  systemNotifications?: boolean;
  /**
   * Where the browser id, its secret, the last event id and the newest attempt ids are kept, so
   * that a reload resumes the same browser. `null` keeps nothing. `localStorage` would make every
   * tab resume one browser: keep the default, one browser per tab.
   * @default sessionStorage
   */
  storage?: Storage | null;
  /**
   * `sse` streams with `fetch`; `poll` polls `POST /v1/connect/{token}`; `auto` streams and falls
   * back to polling when streaming is unavailable or a proxy holds the stream back.
   * @default 'auto'
   */
  transport?: 'auto' | 'sse' | 'poll';
  /**
   * Time between two polls, in milliseconds (polling counts against the per-IP connect limit of
   * 60 requests a minute, shared by every tab behind one address).
   * @default 10000
   */
  pollIntervalMs?: number;
  /**
   * The `fetch` to use.
   * @default globalThis.fetch
   * @internal
   */
  fetch?: typeof fetch;
  /**
   * Clocks, timers and the page.
   * @internal
   */
  environment?: Partial<TidingsEnvironment>;
}

/** {@link ConnectOptions} with every default applied. */
export interface ResolvedOptions extends ConnectOptions {
  baseUrl: string;
  onNotification: (notification: TidingsNotification) => void;
  storage: Storage | null;
  transport: 'auto' | 'sse' | 'poll';
  pollIntervalMs: number;
  fetch: typeof fetch;
  environment: TidingsEnvironment;
}

function defaultStorage(): Storage | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // a sandboxed iframe throws on the mere access
  }
}

/** Applies the defaults and throws a `TypeError` on a misuse, at once rather than later. */
export function resolveOptions(options: ConnectOptions): ResolvedOptions {
  const { token, getToken, transport = 'auto', pollIntervalMs = 10_000 } = options ?? {};
  // The option at fault, named in the message: its rules are in the README.
  const invalid =
    typeof options?.onNotification !== 'function'
      ? 'onNotification'
      : !/^https?:\/\//i.test(String(options.baseUrl))
        ? 'baseUrl'
        : !(token ? typeof token === 'string' : typeof getToken === 'function')
          ? 'token or getToken'
          : !/^(auto|sse|poll)$/.test(transport)
            ? 'transport'
            : !(pollIntervalMs >= 1000)
              ? 'pollIntervalMs'
              : '';
  if (invalid) throw new TypeError(`Tidings connect(): invalid ${invalid}`);
  // Options the SDK takes as given (token, recipient, getToken, the callbacks) come through the
  // spread; the rest get their defaults here.
  return {
    ...options,
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    storage: options.storage === undefined ? defaultStorage() : options.storage,
    transport,
    pollIntervalMs,
    // Looked up at each call, so that a fetch patched after connect() (tests, tracing) is used.
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    environment: {
      setTimeout: (callback, milliseconds) => setTimeout(callback, milliseconds),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      now: Date.now,
      random: Math.random,
      host: (globalThis.window as unknown as TidingsHost | undefined) ?? null,
      ...options.environment,
    },
  };
}
