import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createSecretSealer,
  createTidings,
  generateSecretKey,
  parseSecretKeys,
  surveyStoredSecrets,
  unsealedSecrets,
} from '@tidings/core';
import { webhooks } from '@tidings/core/node';
import { until } from '@tidings/core/testing';
import { createSqliteStore } from '@tidings/store-sqlite';
import { binPath, runTidings, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let temp: Awaited<ReturnType<typeof tempDir>>;
let db: string;
beforeEach(async () => {
  temp = await tempDir();
  db = join(temp.dir, 'tidings.db');
});
afterEach(async () => {
  await temp.remove();
});

let seeded = 0;

/** A database with `projects` projects of `perProject` endpoints each, made with `keys` (none: unsealed). */
async function seed(keys: string[], projects: number, perProject: number): Promise<string[]> {
  const store = createSqliteStore({ path: db });
  const tidings = createTidings({ store, sweepIntervalMs: 0, jobs: false, secretKeys: keys, features: [webhooks()] });
  const ids: string[] = [];
  try {
    const account = await tidings.admin.createAccount({ email: `ops${seeded++}@example.com`, verified: true });
    for (let p = 0; p < projects; p++) {
      const project = await tidings.admin.createProject({ accountId: account.id, name: `P${p}` });
      for (let e = 0; e < perProject; e++) {
        const endpoint = await tidings.admin.createWebhookEndpoint({
          projectId: project.id,
          url: `https://example.com/hooks/${p}/${e}`,
          events: ['browser.connected'],
        });
        ids.push(endpoint.id);
      }
    }
    await tidings.admin.getVapidKey();
  } finally {
    await tidings.close();
    await store.close();
  }
  return ids;
}

/** How the stored secrets stand against `keys`, read in this process. */
async function survey(keys: string[]) {
  const store = createSqliteStore({ path: db });
  try {
    const sealer = keys.length === 0 ? unsealedSecrets : createSecretSealer(parseSecretKeys(keys, 'test'));
    return { ...(await surveyStoredSecrets(store, sealer)), sealingKeyId: sealer.sealingKeyId };
  } finally {
    await store.close();
  }
}

/** The stored secret columns, as they are in the file. */
function storedColumns(): string[] {
  const file = new Database(db, { readonly: true });
  try {
    return file
      .prepare<[], { value: string }>(
        'SELECT secret AS value FROM webhook_endpoints UNION ALL SELECT private_key FROM vapid_keys ORDER BY value',
      )
      .all()
      .map((row) => row.value);
  } finally {
    file.close();
  }
}

/** `tidings serve` on the file, expected to refuse: its exit code and what it printed. */
async function refusedServe(env: NodeJS.ProcessEnv) {
  const result = await runTidings(['serve', '--db', db, '--port', '0'], { TIDINGS_SECRETS_KEY: '', ...env });
  expect(result.stdout).not.toMatch(/listening on/);
  return result;
}

describe('tidings serve and the stored secrets', () => {
  it('says once at start that secrets are stored unsealed when no key is set, and starts', async () => {
    const server = await startServe(['--db', db, '--port', '0'], { TIDINGS_SECRETS_KEY: '' });
    try {
      expect(server.url).toMatch(/^http:/);
      const lines = server
        .stderr()
        .split('\n')
        .filter((line) => line.includes('secrets are stored unsealed'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('TIDINGS_SECRETS_KEY');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('refuses to start without the key that sealed them, with one plain line, and writes nothing', async () => {
    const key = generateSecretKey();
    await seed([key], 1, 2);
    const keyId = createSecretSealer(parseSecretKeys([key], 'k')).sealingKeyId;
    const before = storedColumns();
    const result = await refusedServe({});
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `error: 3 stored secrets are sealed (key ${keyId}) but no secrets key is set: set TIDINGS_SECRETS_KEY, TIDINGS_SECRETS_KEY_FILE or the config file's "secretsKeyFile"`,
    ]);
    expect(result.stderr).not.toContain('INTERNAL_ERROR');
    expect(storedColumns()).toEqual(before);
  });

  it('refuses a wrong key, naming the key that is needed, and seals nothing meanwhile', async () => {
    const key = generateSecretKey();
    await seed([key], 1, 1);
    // An endpoint of an older, unsealed time: a refused start must leave it as it is too.
    await seed([], 1, 1);
    const before = storedColumns();
    const wrong = generateSecretKey();
    const ids = (keys: string[]) => createSecretSealer(parseSecretKeys(keys, 'k')).sealingKeyId;
    const result = await refusedServe({ TIDINGS_SECRETS_KEY: wrong });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `error: 2 stored secrets are sealed under key ${ids([key])}, which TIDINGS_SECRETS_KEY does not hold (it holds ${ids([wrong])}): add that key`,
    ]);
    expect(storedColumns()).toEqual(before);
    expect(before.filter((value) => value.startsWith('whsec_'))).toHaveLength(1);

    const malformed = await refusedServe({ TIDINGS_SECRETS_KEY: 'not-a-key' });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr.trim()).toMatch(
      /^error: TIDINGS_SECRETS_KEY \(key 1\) is not a secrets key: .*generate-key/,
    );
  });

  it('refuses secrets swapped between rows: a sealed value does not open in another row', async () => {
    const key = generateSecretKey();
    const [first, second] = await seed([key], 1, 2);
    const file = new Database(db);
    const secretOf = (id: string) =>
      file.prepare<[string], string>('SELECT secret FROM webhook_endpoints WHERE id = ?').pluck().get(id)!;
    const [a, b] = [secretOf(first!), secretOf(second!)];
    file.prepare('UPDATE webhook_endpoints SET secret = ? WHERE id = ?').run(b, first);
    file.prepare('UPDATE webhook_endpoints SET secret = ? WHERE id = ?').run(a, second);
    file.close();
    const result = await refusedServe({ TIDINGS_SECRETS_KEY: key });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(
      new RegExp(`^error: 2 stored secrets do not open \\(first: secret of webhook endpoint (${first}|${second})\\)`),
    );
  });

  it("reads the keys of the config file's secretsKeyFile, and seals at start what was stored unsealed", async () => {
    await seed([], 1, 2);
    expect(storedColumns().filter((value) => value.startsWith('whsec_'))).toHaveLength(2);
    const key = generateSecretKey();
    await writeFile(join(temp.dir, 'keys.txt'), `# the first key seals\n${key}\n`);
    const config = join(temp.dir, 'tidings.json');
    await writeFile(config, JSON.stringify({ secretsKeyFile: 'keys.txt' }));
    const server = await startServe(['--db', db, '--port', '0', '--config', config], { TIDINGS_SECRETS_KEY: '' });
    server.child.kill('SIGTERM');
    await server.exited;
    expect(server.stderr()).not.toContain('secrets are stored unsealed');
    expect(storedColumns().every((value) => value.startsWith('sealed:v1:'))).toBe(true);
    expect((await survey([key])).current).toBe(3);

    const both = await runTidings(['serve', '--db', db, '--port', '0', '--config', config], {
      TIDINGS_SECRETS_KEY: key,
    });
    expect(both.code).toBe(1);
    expect(both.stderr.trim()).toBe(
      'error: secrets keys are set in TIDINGS_SECRETS_KEY and the config file\'s "secretsKeyFile": set them in one place',
    );
  });

  it('seals what an operator command makes with the key set', async () => {
    const key = generateSecretKey();
    await seed([key], 1, 0);
    const store = createSqliteStore({ path: db });
    const projectId = (await store.listAllProjects())[0]?.id;
    await store.close();
    expect(projectId).toBeDefined();
    const created = await runTidings(
      [
        'webhook',
        'create',
        '--project',
        projectId!,
        '--url',
        'https://example.com/h',
        '--events',
        '*',
        '--db',
        db,
        '--json',
      ],
      { TIDINGS_SECRETS_KEY: key },
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).secret).toMatch(/^whsec_/);
    expect(storedColumns().every((value) => value.startsWith('sealed:v1:'))).toBe(true);
  });
});

describe('tidings secrets rotate', () => {
  it('goes on after a kill -9 halfway, until every secret is under the new key and the old one can go', async () => {
    const [oldKey, newKey] = [generateSecretKey(), generateSecretKey()];
    await seed([oldKey], 10, 10);
    const env = { ...process.env, TIDINGS_DB: '', TIDINGS_SECRETS_KEY: `${newKey},${oldKey}` };
    const args = [binPath, 'secrets', 'rotate', '--db', db, '--batch-size', '5', '--pause-ms', '50'];

    // Killed (SIGKILL: no clean-up of any kind) once a few batches are done.
    const child = spawn(process.execPath, args, { env });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    await until(() => stdout, { accept: (text) => /re-sealed (2\d|[3-9]\d)\b/.test(text), what: 'a few batches' });
    child.kill('SIGKILL');
    await exited;
    const midway = await survey([newKey, oldKey]);
    expect(midway.total).toBe(101);
    expect(midway.current).toBeGreaterThan(0);
    expect(Object.values(midway.older)[0]).toBeGreaterThan(0);
    expect(midway.current + Object.values(midway.older)[0]!).toBe(101);
    expect(midway.broken).toEqual([]);

    // Run again: it carries on, and says the old key may go.
    const again = await runTidings(['secrets', 'rotate', '--db', db], { TIDINGS_SECRETS_KEY: `${newKey},${oldKey}` });
    expect(again.code).toBe(0);
    const oldId = createSecretSealer(parseSecretKeys([oldKey], 'k')).sealingKeyId;
    const newId = createSecretSealer(parseSecretKeys([newKey], 'k')).sealingKeyId;
    expect(again.stdout).toContain(`re-sealed ${101 - midway.current} of 101 stored secrets under key ${newId}`);
    expect(again.stdout).toContain(
      `every stored secret is sealed under key ${newId}; key ${oldId} is no longer needed`,
    );

    // The old key removed: everything opens with the new one alone, and the server starts.
    const done = await survey([newKey]);
    expect({ total: done.total, current: done.current, unknown: done.unknownKeys }).toEqual({
      total: 101,
      current: 101,
      unknown: {},
    });
    const status = await tidingsJson<{ current: number; total: number }>(['secrets', 'status', '--db', db]).catch(
      () => null,
    );
    // Without a key the status still reads (and counts them as sealed under a key not set).
    expect(status).toMatchObject({ total: 101, current: 0 });
    const server = await startServe(['--db', db, '--port', '0'], { TIDINGS_SECRETS_KEY: newKey });
    server.child.kill('SIGTERM');
    await server.exited;
    const oldOnly = await refusedServe({ TIDINGS_SECRETS_KEY: oldKey });
    expect(oldOnly.code).toBe(1);
  }, 60_000);

  it('refuses to run without a key, and prints a new key with generate-key', async () => {
    const refused = await runTidings(['secrets', 'rotate', '--db', db], { TIDINGS_SECRETS_KEY: '' });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^error: no secrets key is set: set TIDINGS_SECRETS_KEY/);
    const generated = await runTidings(['secrets', 'generate-key']);
    expect(generated.code).toBe(0);
    expect(parseSecretKeys([generated.stdout.trim()], 'generated')).toHaveLength(1);
  });
});
