import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/harness.js';
import { TidingsError } from '../index.js';

/**
 * `tidings.notifications.send` without a transaction of the caller's: the route's checks and
 * answers, typed (docs/transactions.md#the-in-process-send).
 */
let harness: Harness;
afterEach(async () => {
  await harness?.close();
});

describe('a send in process', () => {
  it('answers the object the route answers, and shares its idempotency keys with HTTP', async () => {
    harness = await createHarness();
    await harness.connectBrowser('r1');
    const sent = await harness.tidings.notifications.send(
      { recipient: 'r1', title: 'Hello', data: { b: 1, a: 2 } },
      { projectId: harness.project.id, idempotencyKey: 'shared' },
    );
    expect(sent.replayed).toBe(false);
    expect(sent.notification).toMatchObject({ object: 'notification', mode: 'live', recipient: 'r1', title: 'Hello' });
    // The same body over HTTP with a live key of the project replays the in-process send.
    const overHttp = await harness.send({ recipient: 'r1', title: 'Hello', data: { a: 2, b: 1 } }, harness.liveKey, {
      'Idempotency-Key': 'shared',
    });
    expect(overHttp.status).toBe(201);
    expect(overHttp.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await overHttp.json()).toEqual(sent.notification);
    // A send over HTTP read back in process: the route's answer is the in-process one.
    const http = await harness.send({ recipient: 'r1', title: 'Other' }, harness.liveKey, { 'Idempotency-Key': 'h' });
    const replayed = await harness.tidings.notifications.send(
      { recipient: 'r1', title: 'Other' },
      { projectId: harness.project.id, idempotencyKey: 'h' },
    );
    expect(replayed).toEqual({ notification: await http.json(), replayed: true });
  });

  it('records a test-mode send as final at once', async () => {
    harness = await createHarness();
    await harness.connectBrowser('r1');
    const sent = await harness.tidings.notifications.send(
      { recipient: 'r1', title: 'Test' },
      { projectId: harness.project.id, mode: 'test' },
    );
    expect(sent.notification.mode).toBe('test');
    expect(sent.notification.attempts.map((attempt) => attempt.final)).toEqual([true]);
  });

  it('refuses with the route’s typed errors', async () => {
    harness = await createHarness({ limits: { perProject: 3 } });
    const { tidings, project } = harness;
    const send = (input: unknown, options: object = {}) =>
      tidings.notifications.send(input as { recipient: string; title: string }, { projectId: project.id, ...options });
    await expect(send({ recipient: 'r1', title: 'x', extra: 1 })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 400,
    });
    await expect(send({ recipient: 'nobody', title: 'x' })).rejects.toMatchObject({ code: 'NO_CONNECTED_BROWSER' });
    for (const idempotencyKey of ['', 'é', 'x'.repeat(256), 42]) {
      await expect(send({ recipient: 'r1', title: 'x' }, { idempotencyKey })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ path: 'idempotencyKey' }],
      });
    }
    await harness.connectBrowser('r1');
    await send({ recipient: 'r1', title: 'A' }, { idempotencyKey: 'k' });
    await expect(send({ recipient: 'r1', title: 'B' }, { idempotencyKey: 'k' })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_MISMATCH',
      status: 422,
    });
    // The project's limit counts sends in process as it counts requests.
    const limited = await send({ recipient: 'r1', title: 'C' }).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(TidingsError);
    expect(limited).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect((limited as TidingsError).headers['Retry-After']).toMatch(/^\d+$/);
    await tidings.admin.suspendProject(project.id);
    await expect(send({ recipient: 'r1', title: 'D' })).rejects.toMatchObject({ code: 'PROJECT_SUSPENDED' });
    await expect(send({ recipient: 'r1', title: 'E' }, { mode: 'other' })).rejects.toThrow(TypeError);
  });

  it('sends in the project the instance names, and refuses once it is suspended', async () => {
    harness = await createHarness({ extra: { project: 'one-app' } });
    const { tidings } = harness;
    const project = await tidings.project();
    expect(project).toMatchObject({ name: 'one-app', suspended: false });
    const token = await tidings.createConnectToken({ recipient: 'r1' });
    expect((await harness.request(`/v1/connect/${token.token}`, { method: 'POST' })).status).toBe(201);
    const sent = await tidings.notifications.send({ recipient: 'r1', title: 'Keyless' });
    expect(sent.notification.recipient).toBe('r1');
    await tidings.admin.suspendProject(project.id);
    await expect(tidings.notifications.send({ recipient: 'r1', title: 'No' })).rejects.toMatchObject({
      code: 'PROJECT_SUSPENDED',
    });
    await expect(tidings.createConnectToken({ recipient: 'r1' })).rejects.toMatchObject({ code: 'PROJECT_SUSPENDED' });
  });

  it('refuses a second send with a key while the first runs in this process', async () => {
    harness = await createHarness();
    await harness.connectBrowser('r1');
    const input = { recipient: 'r1', title: 'Once' };
    const options = { projectId: harness.project.id, idempotencyKey: 'running' };
    const [first, second] = await Promise.allSettled([
      harness.tidings.notifications.send(input, options),
      harness.tidings.notifications.send(input, options),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({ status: 'rejected', reason: { code: 'IDEMPOTENCY_IN_PROGRESS' } });
  });

  it('refuses a transaction a store cannot take', async () => {
    harness = await createHarness();
    await expect(
      harness.tidings.notifications.send(
        { recipient: 'r1', title: 'x' },
        { projectId: harness.project.id, transaction: { query: async () => ({ rows: [] }) } },
      ),
    ).rejects.toThrow(/prepare\(\) before it/);
    await expect(harness.tidings.notifications.prepare({ recipient: 'r1', title: 'x' })).rejects.toThrow(
      /Name the project/,
    );
  });
});
