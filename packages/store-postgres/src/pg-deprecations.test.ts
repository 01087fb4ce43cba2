import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { busyWithoutPipelining, isPgDeprecation } from '@tidings/test-support/pg-deprecations.js';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { testDatabaseUrl } from './test-support/test-database.js';

/**
 * The check every test file runs (test/support/no-pg-deprecations.ts) knows node-postgres's own
 * warning, and the store's way of ending a transaction makes none: each case runs in a process of
 * its own, since Node prints a deprecation once per process.
 */
const execFileAsync = promisify(execFile);

/** Runs `body` (ES module code, `pg` imported as `pg`, `url` the test database) and returns its stderr. */
async function stderrOf(body: string): Promise<string> {
  const script = `import pg from 'pg';\nconst url = ${JSON.stringify(testDatabaseUrl)};\n${body}`;
  const { stderr } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: import.meta.dirname,
  });
  return stderr;
}

/** The warnings of a process's stderr, as Node prints them: `(node:PID) Name: message`. */
function warningsOf(stderr: string): { name: string; message: string }[] {
  return [...stderr.matchAll(/^\(node:\d+\) (\w+): (.*)$/gm)].map(([, name, message]) => ({
    name: name!,
    message: message!,
  }));
}

describe('pg deprecation warnings', () => {
  it('are recognised as node-postgres prints them', async () => {
    // Statements given to a client at once, without pipelining: pg 8 queues them, and warns
    // once one waits behind another in its queue (the third).
    const stderr = await stderrOf(`const client = new pg.Client(url);
await client.connect();
await Promise.all([client.query('BEGIN'), client.query('SELECT 1'), client.query('SELECT 2')]);
await client.query('ROLLBACK');
await client.end();`);
    const warnings = warningsOf(stderr);
    expect(warnings.map((warning) => warning.name)).toContain('DeprecationWarning');
    expect(warnings.filter(isPgDeprecation)).toHaveLength(1);
    expect(isPgDeprecation({ name: 'DeprecationWarning', message: 'Buffer() is deprecated' })).toBe(false);
  });

  it('are not printed for statements sent together on a pipelining client', async () => {
    const stderr = await stderrOf(`const client = new pg.Client({ connectionString: url, pipeline: true });
await client.connect();
await Promise.all([client.query('BEGIN'), client.query('SELECT 1'), client.query('COMMIT')]);
await client.end();`);
    expect(warningsOf(stderr)).toEqual([]);
  });

  it('are foreseen by the stricter check: a statement given to a busy client without pipelining', async () => {
    const plain = new pg.Client(testDatabaseUrl);
    const pipelined = new pg.Client({ connectionString: testDatabaseUrl, pipeline: true });
    await Promise.all([plain.connect(), pipelined.connect()]);
    try {
      expect(busyWithoutPipelining(plain as never)).toBe(false);
      const first = plain.query('SELECT pg_sleep(0.05)');
      expect(busyWithoutPipelining(plain as never)).toBe(true);
      await first;
      expect(busyWithoutPipelining(plain as never)).toBe(false);
      const sent = pipelined.query('SELECT pg_sleep(0.05)');
      expect(busyWithoutPipelining(pipelined as never)).toBe(false);
      await sent;
    } finally {
      await Promise.all([plain.end(), pipelined.end()]);
    }
  });
});
