import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quietPeriod } from '@tidings/core/testing';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppInstance, appInstance, openBrowser } from '../src/test-support/app-instances.js';
import { generatePrismaClient } from '../src/test-support/prisma-client.js';
import { dropSchema, randomSchema, testDatabaseUrl } from '../src/test-support/test-database.js';

/**
 * `kill -9` of an application process right after the COMMIT of a transaction that sent, on a
 * node-postgres client and in a Prisma interactive transaction: the send was durable with the
 * commit, and reaches the browser from the instance that starts next.
 */
const schema = randomSchema('tidings_crash');
const project = 'crash-app';
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const started: AppInstance[] = [];
let prisma: Awaited<ReturnType<typeof generatePrismaClient>> | undefined;

afterAll(async () => {
  for (const instance of started) await instance.close();
  await prisma?.remove();
  await dropSchema(schema);
});

/** The application process of each library, and what it needs besides the recipient. */
const applications = [
  { library: 'node-postgres', file: 'commit-then-die.mjs', env: async () => ({}) },
  {
    library: 'Prisma',
    file: 'commit-then-die-prisma.mjs',
    async env() {
      prisma ??= await generatePrismaClient(testDatabaseUrl, schema);
      return { CRASH_PRISMA_CLIENT: join(prisma.dir, 'client', 'client.ts') };
    },
  },
];

function runChild(
  file: string,
  recipient: string,
  env: Record<string, string>,
): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [fixture(file)], {
      env: {
        ...process.env,
        ...env,
        TIDINGS_TEST_DATABASE_URL: testDatabaseUrl,
        CRASH_SCHEMA: schema,
        CRASH_PROJECT: project,
        CRASH_RECIPIENT: recipient,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    process_.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    process_.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    process_.on('error', reject);
    process_.on('exit', (code, signal) => {
      if (code !== null && code !== 0) reject(new Error(`the application process failed: ${stderr}`));
      else resolve({ signal, stdout });
    });
  });
}

describe.each(applications)('a crash right after the commit of a send through $library', ({ file, env }) => {
  it('delivers the send from the next instance', async () => {
    expect(existsSync(built), 'run `npm run build` first: the application process loads the built packages').toBe(true);
    const first = await appInstance(schema, project);
    const target = await openBrowser(first);
    await first.close();

    const { signal, stdout } = await runChild(file, target.recipient, await env());
    expect(signal).toBe('SIGKILL');
    const notificationId = /committed (ntf_\w+)/.exec(stdout)?.[1];
    expect(notificationId).toBeDefined();

    const next = await appInstance(schema, project);
    started.push(next);
    const token = await next.tidings.createConnectToken({ recipient: target.recipient });
    const resumed = readEvents(
      await next.request(`/v1/connect/${token.token}`, { headers: { 'Last-Event-ID': `${target.browserId}.0` } }),
    );
    const event = await resumed.next('notification');
    expect(JSON.parse(event.data)).toMatchObject({ notification_id: notificationId, title: 'Sent before the crash' });
    await quietPeriod(200, 'a second delivery');
    expect(resumed.events.filter((e) => e.event === 'notification')).toHaveLength(1);
  });
});
