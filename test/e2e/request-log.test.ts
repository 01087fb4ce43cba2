import { createSqliteStore } from '@tidings/store-sqlite';
import {
  assertBuilt,
  createKeyWithCli,
  createProjectWithCli,
  type ServedFile,
  servedFile,
} from '@tidings/test-support/cli-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The standalone server's request log at shutdown: with a flush interval longer than the test,
 * the entry of a refused send is still buffered when SIGTERM comes, and is on disk once the
 * server has exited.
 */
let file: ServedFile;

beforeAll(async () => {
  assertBuilt();
  file = await servedFile({ requestLog: { flushIntervalMs: 3_600_000 } });
});

afterAll(async () => {
  await file?.close();
});

describe('tidings serve and the request log', () => {
  it('writes the buffered entries when it stops on SIGTERM', async () => {
    const { projectId } = await createProjectWithCli(file.db);
    const { key } = await createKeyWithCli(file.db, projectId, 'live');
    const server = await file.serve();
    const refused = await fetch(`${server.url}/v1/notifications`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'k-1' },
      body: JSON.stringify({ recipient: 'nobody', title: 'Hi' }),
    });
    expect(refused.status).toBe(409);
    const requestId = refused.headers.get('Request-Id')!;
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const store = createSqliteStore({ path: file.db });
    try {
      const entry = await store.getRequestLogEntry({ projectId, requestId });
      expect(entry).toMatchObject({ status: 409, code: 'NO_CONNECTED_BROWSER', idempotencyKey: 'k-1' });
      expect(JSON.stringify(entry)).not.toContain(key);
    } finally {
      await store.close();
    }
  });

  it('refuses a bad requestLog option in the config file with a clear message', async () => {
    const bad = await servedFile({ requestLog: { retentionDays: 0 } });
    try {
      await expect(bad.serve()).rejects.toThrow(/requestLog\.retentionDays must be a positive integer/);
    } finally {
      await bad.close();
    }
  });
});
