import { join } from 'node:path';
import { assertBuilt, runTidings, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import { afterAll, beforeAll, expect } from 'vitest';

/** A problem document as `--json` prints it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
}

/**
 * A temporary directory with a SQLite database for one test file's CLI runs (made before its tests,
 * removed after), and the helpers those tests share. The CLI tests are split in files that each
 * have one, so that they run side by side.
 */
export function cliDatabase() {
  const paths = { dir: '', db: '' };
  let remove = async () => {};
  beforeAll(async () => {
    assertBuilt();
    const temp = await tempDir();
    remove = temp.remove;
    paths.dir = temp.dir;
    paths.db = join(temp.dir, 'cli.db');
  });
  afterAll(async () => remove());

  /** Runs a `--json` command that must fail with exit 1, and returns the problem it printed. */
  async function failingJson(args: string[]): Promise<Problem> {
    const result = await runTidings([...args, '--db', paths.db, '--json']);
    expect(result.code).toBe(1);
    return JSON.parse(result.stdout) as Problem;
  }

  /** A new verified account's id. */
  async function verifiedAccount(email: string): Promise<string> {
    const account = await tidingsJson<{ id: string }>([
      'account',
      'create',
      '--email',
      email,
      '--verified',
      '--db',
      paths.db,
    ]);
    return account.id;
  }

  /** A new project's id. */
  async function project(accountId: string, name = 'P'): Promise<string> {
    const created = await tidingsJson<{ id: string }>([
      'project',
      'create',
      '--account',
      accountId,
      '--name',
      name,
      '--db',
      paths.db,
    ]);
    return created.id;
  }

  return { paths, failingJson, verifiedAccount, project };
}
