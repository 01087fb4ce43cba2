import { randomBytes } from 'node:crypto';
import { hashSecret } from '@tidings/core';
import type { DashboardAccount, SessionStore } from '../store.js';

/**
 * The session cookie's name: with the `__Host-` prefix where the dashboard is served over https,
 * so that the browser takes it only from this host, with `Secure` and `Path=/` (no subdomain,
 * no plain-http page can set or shadow it); without it over plain http, where the prefix would
 * make the browser refuse the cookie.
 */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-tidings_session' : 'tidings_session';
}

/** What the pages know about the person signed in. */
export interface SignedIn {
  account: DashboardAccount;
  /** The SHA-256 of the session id, to end this session. */
  sessionHash: string;
}

/** Sessions: a random id in an HttpOnly cookie, only its SHA-256 in the store. */
export function createSessions(options: { store: SessionStore; idleMs: number; absoluteMs: number }) {
  const { store, idleMs, absoluteMs } = options;
  return {
    /**
     * Starts a session (always a new id: a fixed one could be planted before sign-in), noting
     * the browser's user agent and the client IP for the account's list of sessions.
     */
    async start(
      accountId: string,
      now: number,
      client: { userAgent: string | null; ip: string | null } = { userAgent: null, ip: null },
    ): Promise<string> {
      const id = randomBytes(32).toString('base64url');
      await store.createSession({
        hash: hashSecret(id),
        accountId,
        now,
        idleExpiresAt: now + idleMs,
        absoluteExpiresAt: now + absoluteMs,
        userAgent: client.userAgent?.slice(0, 200) ?? null,
        ip: client.ip,
      });
      return id;
    },
    /** The signed-in account of a cookie value, moving the idle expiry; null when none or expired. */
    async resume(id: string | undefined, now: number): Promise<SignedIn | null> {
      if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
      const sessionHash = hashSecret(id);
      const found = await store.resumeSession({ hash: sessionHash, now, idleExpiresAt: now + idleMs });
      return found ? { account: found.account, sessionHash } : null;
    },
    end(sessionHash: string): Promise<void> {
      return store.deleteSession(sessionHash);
    },
  };
}

/** The session functions built by {@link createSessions}. */
export type Sessions = ReturnType<typeof createSessions>;

/**
 * A short, readable summary of a user agent for the list of sessions: the browser and the
 * system, e.g. `Firefox on Linux`; the raw string is never shown whole.
 */
export function summariseUserAgent(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser';
  const browsers: [RegExp, string][] = [
    [/Edg\//, 'Edge'],
    [/OPR\/|Opera/, 'Opera'],
    [/Firefox\//, 'Firefox'],
    [/HeadlessChrome\//, 'Headless Chrome'],
    [/Chrom(e|ium)\//, 'Chrome'],
    [/Safari\//, 'Safari'],
    [/^curl\//, 'curl'],
  ];
  const systems: [RegExp, string][] = [
    [/Android/, 'Android'],
    [/iPhone|iPad|iPod/, 'iOS'],
    [/Windows/, 'Windows'],
    [/Mac OS X|Macintosh/, 'macOS'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ];
  const browser = browsers.find(([pattern]) => pattern.test(userAgent))?.[1] ?? 'Another browser';
  const system = systems.find(([pattern]) => pattern.test(userAgent))?.[1];
  return system ? `${browser} on ${system}` : browser;
}
