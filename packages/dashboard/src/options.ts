import {
  type Clock,
  createConsoleMailer,
  createMemoryLimiter,
  type Hub,
  type Limiter,
  type Logger,
  type Mailer,
  type Store,
  systemClock,
  type Tidings,
} from '@tidings/core';
import type { Context } from 'hono';

/** Who may create an account: anyone, only people an operator invited, or nobody. */
export type SignupPolicy = 'open' | 'invite' | 'closed';

/** Options of {@link tidingsDashboard}. */
export interface DashboardOptions {
  /** The Tidings instance whose admin API creates projects and keys, as the CLI does. */
  tidings: Tidings;
  /** The store that instance runs on: the dashboard keeps accounts, sessions and codes there. */
  store: Store;
  /** Sends codes. @default a mailer that prints `[mail] to=… subject="…" code=…` on stderr */
  mailer?: Mailer;
  /** Counts sign-in, code and reset attempts. @default an in-memory limiter */
  limiter?: Limiter;
  /**
   * The hub the Tidings instance publishes on (pass the same one to `createTidings`): it wakes the
   * live view at once when a send goes out. @default none: the live view re-reads every 2 s
   */
  hub?: Hub;
  /** @default the wall clock */
  clock?: Clock;
  /** @default the Tidings instance's logger is not reachable: nothing is logged unless given */
  logger?: Logger;
  /** The path the pages live under. @default '/dashboard' */
  basePath?: string;
  /** Who may sign up. @default 'open' */
  signup?: SignupPolicy;
  /**
   * The public URL of the server, e.g. `https://notify.example.com`. An https URL adds `Secure`
   * to the session cookie; its origin is accepted for form posts behind a proxy.
   * @default the request's own origin, and no Secure flag
   */
  publicUrl?: string;
  /** A session ends after this long without a request. @default 7200000 (2 hours) */
  sessionIdleMs?: number;
  /** A session ends this long after sign-in, used or not. @default 86400000 (24 hours) */
  sessionAbsoluteMs?: number;
  /** The projects an account may hold, as shown on the page: the Tidings instance's own. @default 10 */
  maxProjectsPerAccount?: number;
  /** The active keys a project may hold, as shown on the page: the Tidings instance's own. @default 10 */
  maxActiveKeysPerProject?: number;
  /** Proxy hops to believe in `X-Forwarded-For` for per-IP limits and the audit log. @default 0 */
  trustProxy?: number;
  /** The client's socket address. @default the Node socket on `@hono/node-server`, else undefined */
  getClientAddress?: (c: Context) => string | undefined;
}

/** {@link DashboardOptions} with every default applied. */
export interface ResolvedDashboardOptions extends Required<Omit<DashboardOptions, 'publicUrl' | 'logger' | 'hub'>> {
  publicUrl: string | null;
  hub: Hub | null;
  secureCookie: boolean;
  logger: Logger | null;
}

const POLICIES: readonly SignupPolicy[] = ['open', 'invite', 'closed'];

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer`);
  return value;
}

/** Applies the defaults; bad values throw a TypeError here, not at the first request. */
export function resolveDashboardOptions(options: DashboardOptions): ResolvedDashboardOptions {
  if (!options.tidings || !options.store) throw new TypeError('tidingsDashboard needs { tidings, store }');
  const signup = options.signup ?? 'open';
  if (!POLICIES.includes(signup)) throw new TypeError(`signup must be one of ${POLICIES.join(', ')}`);
  const basePath = `/${(options.basePath ?? '/dashboard').replace(/^\/+|\/+$/g, '')}`;
  if (basePath === '/') throw new TypeError('basePath must not be the root');
  let publicUrl: string | null = null;
  if (options.publicUrl) {
    const url = new URL(options.publicUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('publicUrl must be http(s)');
    publicUrl = url.origin;
  }
  return {
    tidings: options.tidings,
    store: options.store,
    mailer: options.mailer ?? createConsoleMailer(),
    limiter: options.limiter ?? createMemoryLimiter(),
    clock: options.clock ?? systemClock,
    hub: options.hub ?? null,
    logger: options.logger ?? null,
    basePath,
    signup,
    publicUrl,
    secureCookie: publicUrl?.startsWith('https:') ?? false,
    sessionIdleMs: positive('sessionIdleMs', options.sessionIdleMs ?? 2 * 3_600_000),
    sessionAbsoluteMs: positive('sessionAbsoluteMs', options.sessionAbsoluteMs ?? 24 * 3_600_000),
    maxProjectsPerAccount: positive('maxProjectsPerAccount', options.maxProjectsPerAccount ?? 10),
    maxActiveKeysPerProject: positive('maxActiveKeysPerProject', options.maxActiveKeysPerProject ?? 10),
    trustProxy: options.trustProxy ?? 0,
    getClientAddress: options.getClientAddress ?? nodeSocketAddress,
  };
}

/** `c.env.incoming.socket.remoteAddress`, where `@hono/node-server` puts the Node request. */
function nodeSocketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
