import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTidings, silentLogger, type Tidings } from '@tidings/core';
import { quietPeriod } from '@tidings/core/testing';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../src/sqlite-store.js';

/**
 * `kill -9` of an application process right after its better-sqlite3 transaction that sent
 * returned: the send was durable with the commit, and reaches the browser from the instance
 * that opens the file next.
 */
const project = 'crash-app';
const child = fileURLToPath(new URL('./fixtures/commit-then-die.mjs', import.meta.url));
const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tidings-sqlite-crash-'));
const path = join(dir, 'app.db');
const closing: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const close of closing.reverse()) await close();
  rmSync(dir, { recursive: true, force: true });
});

function instance(): Tidings {
  const store = createSqliteStore({ path });
  const tidings = createTidings({ store, project, logger: silentLogger, sweepIntervalMs: 0 });
  closing.push(async () => {
    await tidings.close();
    await store.close();
  });
  return tidings;
}
const request = (tidings: Tidings, target: string, init: RequestInit = {}) =>
  tidings.fetch(new Request(`http://tidings.test${target}`, init), { clientAddress: '203.0.113.5' });

function runChild(recipient: string): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const running = spawn(process.execPath, [child], {
      env: { ...process.env, CRASH_DB: path, CRASH_PROJECT: project, CRASH_RECIPIENT: recipient },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    running.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    running.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    running.on('error', reject);
    running.on('exit', (code, signal) => {
      if (code !== null && code !== 0) reject(new Error(`the application process failed: ${stderr}`));
      else resolve({ signal, stdout });
    });
  });
}

describe('a crash right after the commit of a send in a better-sqlite3 transaction', () => {
  it('delivers the send from the instance that opens the file next', async () => {
    expect(existsSync(built), 'run `npm run build` first: the application process loads the built packages').toBe(true);
    const first = instance();
    const token = await first.createConnectToken({ recipient: 'crash-user' });
    const stream = readEvents(await request(first, `/v1/connect/${token.token}`));
    const { browser_id: browserId } = JSON.parse((await stream.next('ready')).data) as { browser_id: string };
    await closing.pop()!();

    const { signal, stdout } = await runChild('crash-user');
    expect(signal).toBe('SIGKILL');
    const notificationId = /committed (ntf_\w+)/.exec(stdout)?.[1];
    expect(notificationId).toBeDefined();

    const next = instance();
    const again = await next.createConnectToken({ recipient: 'crash-user' });
    const resumed = readEvents(
      await request(next, `/v1/connect/${again.token}`, { headers: { 'Last-Event-ID': `${browserId}.0` } }),
    );
    const event = await resumed.next('notification');
    expect(JSON.parse(event.data)).toMatchObject({ notification_id: notificationId, title: 'Sent before the crash' });
    await quietPeriod(200, 'a second delivery');
    expect(resumed.events.filter((e) => e.event === 'notification')).toHaveLength(1);
  });
});
