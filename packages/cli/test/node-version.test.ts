import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assertBuilt, tempDir } from '@tidings/test-support/cli-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The committed bin that npm links: the version check lives there, before the build is loaded. */
const linkedBin = fileURLToPath(new URL('../bin/tidings.js', import.meta.url));

let dir: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  assertBuilt();
  ({ dir, remove } = await tempDir());
});
afterAll(async () => remove());

/** Runs the linked bin in `dir` as if the running Node.js were `version` (CI also runs a real Node.js 20). */
function runAs(version: string | null, args: string[]) {
  const preload = version
    ? ['--import', `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'${version}'})`]
    : [];
  return spawnSync(process.execPath, [...preload, linkedBin, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, TIDINGS_DB: '', TIDINGS_PORT: '0' },
    timeout: 15_000,
  });
}

describe('the Node.js version the CLI runs on', () => {
  it('stops `tidings serve` on Node.js 20 with one plain line naming both versions, before touching anything', () => {
    const result = runAs('20.20.2', ['serve', '--demo']);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('tidings: Node.js 22 or newer is required; this is Node.js 20.20.2\n');
    // No database, no demo file: it stopped before doing anything.
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops every other command the same way', () => {
    const result = runAs('21.7.3', ['account', 'list']);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('tidings: Node.js 22 or newer is required; this is Node.js 21.7.3\n');
  });

  it('runs on Node.js 22 and later', () => {
    for (const version of ['22.12.0', null]) {
      const result = runAs(version, ['help']);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('usage: tidings <command>');
    }
  });
});
