import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSecretSealer,
  createTidings,
  generateSecretKey,
  parseSecretKeys,
  prepareStoredSecrets,
  unsealedSecrets,
} from '@tidings/core';
import { webhooks } from '@tidings/core/node';
import { formsOf, sealedSecretsScenario } from '@tidings/test-support/sealed-secrets.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../src/sqlite-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tidings-sealed-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every byte of every file of the database (the file, its WAL, the request log's), as text. */
async function rawFiles(): Promise<string> {
  const names = await readdir(dir);
  expect(names).toContain('tidings.db');
  const contents = await Promise.all(names.map((name) => readFile(join(dir, name))));
  return contents.map((bytes) => bytes.toString('latin1')).join('\n');
}

describe('secrets at rest in a SQLite file', () => {
  it('holds no webhook secret, rolled secret or VAPID private key in any form; signatures verify, pushes decrypt', async () => {
    const store = createSqliteStore({ path: join(dir, 'tidings.db') });
    try {
      const { secrets } = await sealedSecretsScenario(store, rawFiles, generateSecretKey());
      expect(secrets).toHaveLength(4);
    } finally {
      await store.close();
    }
    // Closed (the WAL checkpointed into the file): still nothing.
    const raw = await rawFiles();
    expect(raw).not.toContain('whsec_');
  });

  it('without a key keeps them as they are, and a key set later seals them at start', async () => {
    const store = createSqliteStore({ path: join(dir, 'tidings.db') });
    try {
      const tidings = createTidings({ store, sweepIntervalMs: 0, jobs: false, features: [webhooks()] });
      const account = await tidings.admin.createAccount({ email: 'o@example.com', verified: true });
      const project = await tidings.admin.createProject({ accountId: account.id, name: 'P' });
      const endpoint = await tidings.admin.createWebhookEndpoint({
        projectId: project.id,
        url: 'https://example.com/hooks',
        events: ['browser.connected'],
      });
      await tidings.admin.getVapidKey();
      await tidings.close();
      // Unsealed: a copy holds it as it is, which is what sealing is for.
      expect((await store.getWebhookEndpoint(endpoint.id))?.secret).toBe(endpoint.secret);
      const ready = await prepareStoredSecrets(store, unsealedSecrets, 'TIDINGS_SECRETS_KEY');
      expect(ready).toMatchObject({ kind: 'ready', unsealed: true, sealedNow: 0 });

      const sealer = createSecretSealer(parseSecretKeys([generateSecretKey()], 'key'));
      expect(await prepareStoredSecrets(store, sealer, 'TIDINGS_SECRETS_KEY')).toMatchObject({
        kind: 'ready',
        unsealed: false,
        sealedNow: 2,
      });
      const stored = (await store.getWebhookEndpoint(endpoint.id))!.secret;
      expect(stored).toMatch(/^sealed:v1:/);
      for (const form of formsOf(endpoint.secret!)) expect(stored).not.toContain(form);
      expect(sealer.open(stored, { table: 'webhook_endpoints', id: endpoint.id, projectId: project.id })).toMatchObject(
        {
          kind: 'opened',
          value: endpoint.secret,
        },
      );
      // Nothing left to seal at the next start.
      expect(await prepareStoredSecrets(store, sealer, 'TIDINGS_SECRETS_KEY')).toMatchObject({ sealedNow: 0 });
    } finally {
      await store.close();
    }
  });
});
