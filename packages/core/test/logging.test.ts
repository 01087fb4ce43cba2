import { createSqliteStore } from '@tidings/store-sqlite';
import { describe, expect, it } from 'vitest';
import { createTidings, type LogFields, type Logger, type Store } from '../src/index.js';

/** DECISIONS.md section 4: tokens and secrets never appear in logs (nor in problem details). */
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
});
