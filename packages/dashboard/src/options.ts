import {
  type Clock,
  createConsoleMailer,
  type Limiter,
  type Logger,
  type Mailer,
  type ProjectObject,
  type Tidings,
} from '@tidings/core';
import type { Context } from 'hono';
import type { DashboardStore } from './store.js';

/** Who may create an account: anyone, only people an operator invited, or nobody. */
export type SignupPolicy = 'open' | 'invite' | 'closed';

/**
 * Options of {@link tidingsDashboard}. The pages read projects, keys, usage and the log of sends
 * through `tidings.admin`, and take its limits, proxy trust, public URL, clock and hub from the
 * same instance: nothing is passed twice.
 */
export interface DashboardOptions {
  /** The Tidings instance whose admin API the pages drive, as the CLI does. */
  tidings: Tidings;
  /**
   * The dashboard's own port on the database that instance runs on: passwords, sessions, codes,
   * the audit log (`createSqliteDashboardStore(store)` of `@tidings/dashboard/sqlite`, or
   * `createPostgresDashboardStore(store)` of `@tidings/dashboard/postgres`).
   */
  store: DashboardStore;
  /** Sends codes. @default a mailer that prints `[mail] to=… subject="…" code=…` on stderr */
  mailer?: Mailer;
  /**
   * Counts sign-in, code and reset attempts. @default the Tidings instance's limiter
   * (`tidings.admin.settings.limiter`): Redis where the API's limits are, so that the
   * dashboard's hold across instances and restarts too
   */
  limiter?: Limiter;
  /** @default the Tidings instance's logger is not reachable: nothing is logged unless given */
  logger?: Logger;
  /** The path the pages live under. @default '/dashboard' */
  basePath?: string;
  /** Who may sign up. @default 'open' */
  signup?: SignupPolicy;
  /** A session ends after this long without a request. @default 7200000 (2 hours) */
  sessionIdleMs?: number;
  /** A session ends this long after sign-in, used or not. @default 86400000 (24 hours) */
  sessionAbsoluteMs?: number;
  /** The client's socket address. @default the Node socket on `@hono/node-server`, else undefined */
  getClientAddress?: (c: Context) => string | undefined;
  /**
   * The live notifications a month a project's plan allows, drawn as a line on its monthly usage
   * chart; null where the project has no such limit. Tidings itself caps no monthly number (its
   * limits are of rate, per minute): a host that sells plans answers from its own records, and
   * enforces them itself. @default no project has a monthly limit
   */
  monthlyNotificationLimit?: (project: ProjectObject) => number | null | Promise<number | null>;
}

/** {@link DashboardOptions} with every default applied, and what the pages take from `tidings`. */
export interface ResolvedDashboardOptions extends Required<Omit<DashboardOptions, 'logger'>> {
  logger: Logger | null;
  /** The Tidings instance's clock. */
  clock: Clock;
  /** The instance's public origin (its `publicUrl`): an https one adds `Secure` to the cookie. */
  publicUrl: string | null;
  secureCookie: boolean;
  /** The instance's `trustProxy`: hops believed in `X-Forwarded-For`. */
  trustProxy: number;
  /** The instance's limits, as shown on the pages. */
  maxProjectsPerAccount: number;
  maxActiveKeysPerProject: number;
}

const POLICIES: readonly SignupPolicy[] = ['open', 'invite', 'closed'];

/**
 * Options the dashboard once took beside `tidings` and now reads from it: passing one is refused
 * rather than ignored, since a dropped `publicUrl` would, say, drop the cookie's `Secure` flag.
 */
const INSTANCE_OPTIONS = [
  'hub',
  'clock',
  'publicUrl',
  'trustProxy',
  'maxProjectsPerAccount',
  'maxActiveKeysPerProject',
];

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer`);
  return value;
}

/** Applies the defaults; bad values throw a TypeError here, not at the first request. */
export function resolveDashboardOptions(options: DashboardOptions): ResolvedDashboardOptions {
  if (!options.tidings || !options.store) throw new TypeError('tidingsDashboard needs { tidings, store }');
  for (const name of INSTANCE_OPTIONS) {
    if (name in options) {
      throw new TypeError(`tidingsDashboard takes ${name} from the Tidings instance: pass it to createTidings`);
    }
  }
  const signup = options.signup ?? 'open';
  if (!POLICIES.includes(signup)) throw new TypeError(`signup must be one of ${POLICIES.join(', ')}`);
  const basePath = `/${(options.basePath ?? '/dashboard').replace(/^\/+|\/+$/g, '')}`;
  if (basePath === '/') throw new TypeError('basePath must not be the root');
  const settings = options.tidings.admin.settings;
  const publicUrl = settings.publicUrl === null ? null : new URL(settings.publicUrl).origin;
  return {
    tidings: options.tidings,
    store: options.store,
    mailer: options.mailer ?? createConsoleMailer(),
    limiter: options.limiter ?? settings.limiter,
    clock: settings.clock,
    logger: options.logger ?? null,
    basePath,
    signup,
    publicUrl,
    secureCookie: publicUrl?.startsWith('https:') ?? false,
    sessionIdleMs: positive('sessionIdleMs', options.sessionIdleMs ?? 2 * 3_600_000),
    sessionAbsoluteMs: positive('sessionAbsoluteMs', options.sessionAbsoluteMs ?? 24 * 3_600_000),
    maxProjectsPerAccount: settings.maxProjectsPerAccount,
    maxActiveKeysPerProject: settings.maxActiveKeysPerProject,
    trustProxy: settings.trustProxy,
    getClientAddress: options.getClientAddress ?? nodeSocketAddress,
    monthlyNotificationLimit: options.monthlyNotificationLimit ?? (() => null),
  };
}

/** `c.env.incoming.socket.remoteAddress`, where `@hono/node-server` puts the Node request. */
function nodeSocketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
