import { createSqliteStore } from '@tidings/store-sqlite';
import { describe, expect, it, vi } from 'vitest';
import { createTidings, type LogFields, type Logger, type Store } from '../src/index.js';

/** docs/api.md#logs: tokens and secrets never appear in logs (nor in problem details); each line says which request. */
describe('secrets stay out of logs', () => {
  it('an internal error on a connect path logs the request id and a redacted path', async () => {
    const lines: string[] = [];
    const record = (message: string, fields?: LogFields) => lines.push(JSON.stringify({ message, ...fields }));
    const logger: Logger = { info: record, warn: record, error: record };
    const sqlite = createSqliteStore({ path: ':memory:' });
    const store: Store = Object.assign(Object.create(sqlite) as Store, {
      findConnectToken: async () => {
        throw new Error('disk on fire');
      },
    });
    const tidings = createTidings({ store, logger, sweepIntervalMs: 0 });
    const token = `ct_${'S'.repeat(32)}`;
    try {
      const response = await tidings.fetch(new Request(`http://tidings.test/v1/connect/${token}`));
      expect(response.status).toBe(500);
      const problem = await response.json();
      expect(problem.code).toBe('INTERNAL_ERROR');
      expect(JSON.stringify(problem)).not.toContain('disk on fire');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(problem.request_id);
      expect(lines[0]).toContain('/v1/connect/[redacted]');
      expect(lines[0]).toContain('disk on fire');
      expect(lines[0]).not.toContain(token);

      const unknownRoute = await tidings.fetch(new Request(`http://tidings.test/v1/connect/${token}/more`));
      expect(unknownRoute.status).toBe(404);
      expect(await unknownRoute.text()).not.toContain(token);
    } finally {
      await tidings.close();
      await sqlite.close();
    }
  });

  it('a failure to record ended streams names the task and the count, and no token', async () => {
    const lines: Record<string, unknown>[] = [];
    const record = (message: string, fields?: LogFields) => lines.push({ message, ...fields });
    const logger: Logger = { info: record, warn: record, error: record };
    const sqlite = createSqliteStore({ path: ':memory:' });
    const store: Store = Object.assign(Object.create(sqlite) as Store, {
      releaseBrowsers: async () => {
        throw new Error('disk full');
      },
    });
    const tidings = createTidings({ store, logger, sweepIntervalMs: 0 });
    try {
      const account = await tidings.admin.createAccount({ email: 'l@example.com', verified: true });
      const project = await tidings.admin.createProject({ accountId: account.id, name: 'L' });
      const { token } = await tidings.createConnectToken({ projectId: project.id, recipient: 'r1' });
      const stream = await tidings.fetch(new Request(`http://tidings.test/v1/connect/${token}`));
      expect(stream.status).toBe(200);
      await stream.body?.cancel();
      await vi.waitFor(() => expect(lines).toHaveLength(1));
      // Ended streams are recorded together, as a task of their own rather than of a request.
      expect(lines[0]).toMatchObject({
        message: 'recording held browsers failed',
        task: 'hold-browsers',
        count: 1,
      });
      expect(JSON.stringify(lines)).not.toContain(token);
    } finally {
      await tidings.close();
      await sqlite.close();
    }
  });
});
