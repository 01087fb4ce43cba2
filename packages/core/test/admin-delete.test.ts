import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, describe, expect, it } from 'vitest';
import { TidingsError } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof TidingsError)) throw new Error(`expected a TidingsError, got ${String(error)}`);
  return error.code;
}

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
});
