import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertBuilt, runTidings, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  assertBuilt();
  ({ dir, remove } = await tempDir());
});
afterAll(async () => remove());

/** The Node.js options of a running process, from its command line. */
function nodeOptionsOf(pid: number): string[] {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  return argv.slice(
    1,
    argv.findIndex((arg) => arg.endsWith('bin.js')),
  );
}

/** Serves on a file of its own, returns the server's Node.js options once it answers, and stops it. */
async function optionsOfServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const server = await startServe(
    ['--db', join(dir, `${args.join('_') || 'default'}.db`), '--port', '0', ...args],
    env,
  );
  try {
    expect((await fetch(`${server.url}/v1/openapi.json`)).status).toBe(200);
    return nodeOptionsOf(server.child.pid!);
  } finally {
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }
}

describe('tidings serve and the young generation', () => {
  it('runs with 8 MB semi-spaces by default, in the very process it was started as', async () => {
    expect(await optionsOfServe([])).toContain('--max-semi-space-size=8');
  });

  it('takes another size from the flag, none for 0, and leaves a size given to Node.js alone', async () => {
    expect(await optionsOfServe(['--max-semi-space-size', '16'])).toContain('--max-semi-space-size=16');
    expect((await optionsOfServe(['--max-semi-space-size', '0'])).join(' ')).not.toMatch(/semi-space/);
    const given = await optionsOfServe([], { NODE_OPTIONS: '--max-semi-space-size=2' });
    expect(given.join(' ')).not.toMatch(/semi-space/);
  });

  it('refuses a size that is not a whole number of MB with a usage error', async () => {
    const result = await runTidings(['serve', '--max-semi-space-size', 'lots', '--db', join(dir, 'refused.db')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--max-semi-space-size .* must be a whole number of MB from 0 to 1024/);
  });
});
