import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '@tidings/store-sqlite';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTidings, silentLogger } from '../src/index.js';
import { createHarness, type Harness, refusal } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

describe('admin: deleting a project or an account', () => {
  it('deletes a project: its keys answer 401 at once, its streams close, its place under the limit is free', async () => {
    h = await createHarness({ extra: { maxProjectsPerAccount: 2 } });
    const { admin } = h.tidings;
    await h.connectBrowser('alice');
    expect((await h.send({ recipient: 'alice', title: 'before' })).status).toBe(201);
    const token = (await h.tidings.createConnectToken({ projectId: h.project.id, recipient: 'alice' })).token;
    const stream = readEvents(await h.request(`/v1/connect/${token}`));
    await stream.next('ready');
    await admin.createProject({ accountId: h.account.id, name: 'Second' });
    expect(await refusal(admin.createProject({ accountId: h.account.id, name: 'Third' }))).toBe(
      'PROJECT_LIMIT_REACHED',
    );

    const deleted = await admin.deleteProject(h.project.id);
    expect(deleted).toMatchObject({ id: h.project.id, name: 'Main' });
    expect((await h.send({ recipient: 'alice', title: 'after' })).status).toBe(401);
    expect((await h.send({ recipient: 'alice', title: 'after' }, h.testKey)).status).toBe(401);
    await stream.end();
    expect(h.tidings.openStreams()).toBe(0);
    expect(await refusal(admin.getProject(h.project.id))).toBe('NOT_FOUND');
    expect(await refusal(admin.deleteProject(h.project.id))).toBe('NOT_FOUND');
    expect((await admin.createProject({ accountId: h.account.id, name: 'Third' })).name).toBe('Third');
  });

  it('deletes an account with its projects; its keys answer 401; unknown is NOT_FOUND', async () => {
    h = await createHarness();
    const { admin } = h.tidings;
    const deleted = await admin.deleteAccount(h.account.id);
    expect(deleted.email).toBe('owner@example.com');
    expect((await h.send({ recipient: 'alice', title: 'after' })).status).toBe(401);
    expect(await refusal(admin.getAccount(h.account.id))).toBe('NOT_FOUND');
    expect(await admin.listAccounts()).toEqual([]);
    expect(await refusal(admin.deleteAccount(h.account.id))).toBe('NOT_FOUND');
  });

  it('a deletion by one instance stops the keys in another on the same database at once', async () => {
    h = await createHarness();
    const dir = mkdtempSync(join(tmpdir(), 'tidings-delete-'));
    const path = join(dir, 'tidings.db');
    const stores = [createSqliteStore({ path }), createSqliteStore({ path })];
    const [a, b] = stores.map((store) => createTidings({ store, logger: silentLogger, sweepIntervalMs: 0 }));
    try {
      const account = await a!.admin.createAccount({ email: 'two@example.com', verified: true });
      const project = await a!.admin.createProject({ accountId: account.id, name: 'Shared' });
      const { key } = await a!.admin.createKey({ projectId: project.id, mode: 'live' });
      const get = (tidings: typeof a) =>
        tidings!.fetch(
          new Request('http://tidings.test/v1/notifications/ntf_00000000000000000000000000', {
            headers: { Authorization: `Bearer ${key}` },
          }),
          { clientAddress: '203.0.113.9' },
        );
      // B has looked the key up (and may keep it) before A deletes the project.
      expect((await get(b)).status).toBe(404);
      await a!.admin.deleteProject(project.id);
      expect((await get(b)).status).toBe(401);
      expect((await get(a)).status).toBe(401);
    } finally {
      for (const tidings of [a, b]) await tidings!.close();
      for (const store of stores) await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
