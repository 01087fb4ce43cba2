import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  assertBuilt,
  createKeyWithCli,
  createProjectWithCli,
  runTidings,
  type ServeProcess,
  startServe,
  tempDir,
  tidingsJson,
} from '@tidings/test-support/cli-process.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardMigrations as postgresDashboardMigrations } from '../../dashboard/src/postgres/migrations.js';
import { migrations } from '../../store-postgres/src/migrations.js';

const databaseUrl = process.env.TIDINGS_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
// A schema of this run's own, named in the URL as a user names it, and dropped at the end.
const schema = `tidings_cli_${randomBytes(6).toString('hex')}`;
const db = `${databaseUrl}?schema=${schema}`;
const started: ServeProcess[] = [];

beforeAll(() => assertBuilt());
afterAll(async () => {
  for (const server of started) if (server.child.exitCode === null) server.child.kill('SIGKILL');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

async function post(url: string, body: unknown, key?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('tidings on PostgreSQL (--db postgres://…?schema=…)', () => {
  it('migrates, administers and serves two instances that share one database', async () => {
    expect(await tidingsJson(['migrate', '--db', db])).toEqual({
      object: 'migration',
      store: 'postgres',
      schema,
      from: 0,
      to: migrations.length,
      dashboard: { from: 0, to: postgresDashboardMigrations.length },
    });
    const again = await runTidings(['migrate'], { TIDINGS_DB: db });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `schema ${schema}): schema at version ${migrations.length}, up to date; the dashboard's tables at version ${postgresDashboardMigrations.length}, up to date`,
    );
    // The server's dashboard finds its tables made: instances may open the store with migrations off.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name IN ('sessions', 'passkeys', 'audit_events')",
      [schema],
    );
    await client.end();
    expect(rows[0].n).toBe(3);

    const { projectId } = await createProjectWithCli(db);
    const { id: keyId, key } = await createKeyWithCli(db, projectId, 'live');

    const first = await startServe(['--db', db, '--port', '0']);
    started.push(first);
    const second = await startServe(['--port', '0'], { TIDINGS_DB: db });
    started.push(second);

    // A browser registers on the first instance...
    const tokenResponse = await post(`${first.url}/v1/connect-tokens`, { recipient: 'user-1' }, key);
    expect(tokenResponse.status).toBe(201);
    const { token } = (await tokenResponse.json()) as { token: string };
    const registered = await post(`${first.url}/v1/connect/${token}`, undefined);
    expect(registered.status).toBe(201);
    const browser = (await registered.json()) as { browser_id: string; browser_secret: string };

    // ...a send reaches it through the second...
    const sent = await post(`${second.url}/v1/notifications`, { recipient: 'user-1', title: 'Across' }, key);
    expect(sent.status).toBe(201);
    const notification = (await sent.json()) as { id: string; attempts: { browser_id: string }[] };
    expect(notification.attempts.map((attempt) => attempt.browser_id)).toEqual([browser.browser_id]);

    // ...and the first instance's poll hands it over and records it sent.
    const poll = await post(`${first.url}/v1/connect/${token}`, {
      browser_id: browser.browser_id,
      browser_secret: browser.browser_secret,
    });
    expect(poll.status).toBe(200);
    const polled = (await poll.json()) as { notifications: { notification_id: string; title: string }[] };
    expect(polled.notifications.map((one) => [one.notification_id, one.title])).toEqual([[notification.id, 'Across']]);
    const read = await fetch(`${second.url}/v1/notifications/${notification.id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(((await read.json()) as { attempts: { status: string }[] }).attempts[0]?.status).toBe('sent');

    const usage = await tidingsJson<{ total: { notifications: number; attempts: number } }>([
      'usage',
      '--project',
      projectId,
      '--db',
      db,
    ]);
    expect(usage.total).toEqual({ notifications: 1, attempts: 1 });

    // A suspension and a revocation by the CLI hold on both instances at the very next request.
    await tidingsJson(['project', 'suspend', projectId, '--db', db]);
    for (const server of [first, second]) {
      const refused = await post(`${server.url}/v1/notifications`, { recipient: 'user-1', title: 'x' }, key);
      expect(refused.status).toBe(403);
    }
    await tidingsJson(['project', 'resume', projectId, '--db', db]);
    await tidingsJson(['key', 'revoke', keyId, '--db', db]);
    for (const server of [first, second]) {
      const refused = await post(`${server.url}/v1/notifications`, { recipient: 'user-1', title: 'x' }, key);
      expect(refused.status).toBe(401);
    }

    for (const server of [first, second]) {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  }, 90_000); // a dozen CLI processes, each a cold start of node

  it('reports an unreachable database as an error, without printing its password', async () => {
    const result = await runTidings(['account', 'list', '--db', 'postgres://tidings:s3cret-pw@127.0.0.1:1/nowhere']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
  });
});

describe('tidings migrate on a SQLite file', () => {
  it('creates the file, applies every step, then finds it up to date', async () => {
    const { dir, remove } = await tempDir();
    try {
      const file = join(dir, 'fresh.db');
      const first = await tidingsJson<{
        store: string;
        from: number;
        to: number;
        dashboard: { from: number; to: number };
      }>(['migrate', '--db', file]);
      expect(first).toMatchObject({ store: 'sqlite', from: 0, dashboard: { from: 0 } });
      expect(first.to).toBeGreaterThan(0);
      expect(first.dashboard.to).toBeGreaterThan(0);
      expect(await tidingsJson(['migrate', '--db', file])).toEqual({
        object: 'migration',
        store: 'sqlite',
        schema: null,
        from: first.to,
        to: first.to,
        dashboard: first.dashboard && { from: first.dashboard.to, to: first.dashboard.to },
      });
    } finally {
      await remove();
    }
  });
});
