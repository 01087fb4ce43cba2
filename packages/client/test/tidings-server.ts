import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertBuilt, type ServeProcess, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import { expect } from 'vitest';
import { withAdmin } from '../../cli/src/admin-session.js';
import type { TidingsClient } from '../src/client.js';

/** A `tidings serve` process on a fresh SQLite file, with a project, its keys, and a suspended project. */
export interface TidingsServer {
  url: string;
  db: string;
  projectId: string;
  liveKey: string;
  testKey: string;
  /** A live key of a second project of the same account, suspended from the start. */
  suspendedKey: string;
  /** Kills the process with SIGKILL, as a crash would. */
  crash: () => Promise<void>;
  /** Starts a new process on the same file and port. */
  restart: () => Promise<void>;
  /** `crash()`, then `restart()`. */
  crashAndRestart: () => Promise<void>;
  stop: () => Promise<void>;
}

/** Starts `tidings serve` with `config` (a config file's options) as a user would. */
export async function startTidingsServer(config: Record<string, unknown> = {}): Promise<TidingsServer> {
  assertBuilt();
  const { dir, remove } = await tempDir();
  const db = join(dir, 'tidings.db');
  const configPath = join(dir, 'tidings.json');
  await writeFile(configPath, JSON.stringify(config));
  // One in-process admin session on the file instead of a CLI process per step: the machine's
  // cores go to the server under test.
  const { projectId, liveKey, testKey, suspendedKey } = await withAdmin(db, async (admin) => {
    const account = await admin.createAccount({ email: 'a@example.com', verified: true });
    const project = await admin.createProject({ accountId: account.id, name: 'App' });
    const suspended = await admin.createProject({ accountId: account.id, name: 'Suspended' });
    const keys = {
      projectId: project.id,
      liveKey: (await admin.createKey({ projectId: project.id, mode: 'live' })).key!,
      testKey: (await admin.createKey({ projectId: project.id, mode: 'test' })).key!,
      suspendedKey: (await admin.createKey({ projectId: suspended.id, mode: 'live' })).key!,
    };
    await admin.suspendProject(suspended.id);
    return keys;
  });

  let server: ServeProcess = await startServe(['--db', db, '--port', '0', '--config', configPath]);
  const port = new URL(server.url).port;
  const kill = async (signal: NodeJS.Signals) => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill(signal);
      await server.exited;
    }
  };
  const restart = async () => {
    server = await startServe(['--db', db, '--port', port, '--config', configPath]);
  };
  return {
    url: server.url,
    db,
    projectId,
    liveKey,
    testKey,
    suspendedKey,
    crash: () => kill('SIGKILL'),
    restart,
    crashAndRestart: async () => {
      await kill('SIGKILL');
      await restart();
    },
    stop: async () => {
      await kill('SIGTERM');
      await remove();
    },
  };
}

/**
 * Registers a browser for `recipient` through the polling fallback (`POST /v1/connect/{token}`
 * without a body): a connected browser without a stream to hold open.
 */
export async function connectBrowser(
  tidings: TidingsClient,
  recipient: string,
): Promise<{ browserId: string; browserSecret: string; connectUrl: string }> {
  const token = await tidings.connectTokens.create({ recipient });
  const response = await fetch(token.connect_url, { method: 'POST' });
  expect(response.status).toBe(201);
  const browser = (await response.json()) as { browser_id: string; browser_secret: string };
  return { browserId: browser.browser_id, browserSecret: browser.browser_secret, connectUrl: token.connect_url };
}

/** The notifications the browser's poll hands it (and marks `sent`). */
export async function pollBrowser(browser: {
  browserId: string;
  browserSecret: string;
  connectUrl: string;
}): Promise<{ notification_id: string; attempt_id: string; title: string }[]> {
  const response = await fetch(browser.connectUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ browser_id: browser.browserId, browser_secret: browser.browserSecret }),
  });
  expect(response.status).toBe(200);
  return (
    (await response.json()) as { notifications: { notification_id: string; attempt_id: string; title: string }[] }
  ).notifications;
}

/** Posts a `delivered` receipt for one attempt, as the browser SDK does. */
export async function confirmDelivered(
  url: string,
  browser: { browserId: string; browserSecret: string },
  attemptId: string,
): Promise<void> {
  const response = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      browser_id: browser.browserId,
      browser_secret: browser.browserSecret,
      events: [{ type: 'delivered', attempt_id: attemptId }],
    }),
  });
  expect(response.status).toBe(202);
}

/** A fetch that records every request it passes on, and the answer's status and headers. */
export function recordingFetch(): {
  fetch: typeof fetch;
  log: {
    method: string;
    url: string;
    idempotencyKey: string | null;
    status: number | null;
    sentAt: number;
    answeredAt: number | null;
    headers: Headers | null;
  }[];
} {
  const log: ReturnType<typeof recordingFetch>['log'] = [];
  const recording = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const entry = {
      method: init.method ?? 'GET',
      url: String(input),
      idempotencyKey: new Headers(init.headers).get('idempotency-key'),
      status: null as number | null,
      sentAt: Date.now(),
      answeredAt: null as number | null,
      headers: null as Headers | null,
    };
    log.push(entry);
    const response = await fetch(input, init);
    entry.status = response.status;
    entry.answeredAt = Date.now();
    entry.headers = response.headers;
    return response;
  };
  return { fetch: recording as typeof fetch, log };
}
