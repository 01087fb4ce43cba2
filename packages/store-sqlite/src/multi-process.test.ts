import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite-store.js';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(here, '../../..');
const PROCESSES = 4;
const ROUNDS = 300;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tidings-sqlite-mp-'));
  // The worker runs in plain Node, so it is bundled from the sources first. The store's only
  // runtime imports from the core are a few functions, so the bundle points `@tidings/core` at a
  // file of just those and does not depend on the rest of the core.
  buildSync({
    entryPoints: [join(here, 'test-support/contention-worker.ts')],
    outfile: join(dir, 'worker.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: ['better-sqlite3'],
    alias: {
      '@tidings/core/store': join(here, 'test-support/core-runtime.ts'),
      '@tidings/core': join(here, 'test-support/core-runtime.ts'),
    },
    logLevel: 'silent',
  });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Tally {
  created: number;
  replayed: number;
  keysCreated: number;
  keysRefused: number;
  errors: string[];
}

describe('several processes on one file', () => {
  it('serialize their writes: no SQLITE_BUSY, one send per idempotency key, the key limit holds', async () => {
    const path = join(dir, 'shared.db');
    const setup = createSqliteStore({ path });
    const now = Date.now();
    const account = await setup.createAccount({ id: 'acct_mp', email: 'a@example.com', verified: true, now });
    const project = await setup.createProject({ id: 'proj_mp', accountId: account.id, name: 'P', now, maxProjects: 1 });
    expect(project.kind).toBe('created');
    await setup.registerBrowser({ id: 'brw_mp', projectId: 'proj_mp', recipient: 'r', secretHash: 'h', now });
    await setup.close();

    // The bundle is CommonJS, so NODE_PATH lets it find better-sqlite3 from the temporary directory.
    const env = { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') };
    const startAt = String(Date.now() + 1500);
    const outputs = await Promise.all(
      Array.from({ length: PROCESSES }, (_, worker) =>
        run(process.execPath, [join(dir, 'worker.cjs'), path, 'proj_mp', startAt, String(ROUNDS), String(worker)], {
          env,
        }),
      ),
    );
    const tallies = outputs.map(({ stdout }) => JSON.parse(stdout) as Tally);
    const sum = (pick: (tally: Tally) => number) => tallies.reduce((total, tally) => total + pick(tally), 0);

    expect(tallies.flatMap((tally) => tally.errors)).toEqual([]);
    expect(sum((tally) => tally.created)).toBe(ROUNDS);
    expect(sum((tally) => tally.replayed)).toBe(ROUNDS * (PROCESSES - 1));
    expect(sum((tally) => tally.keysCreated)).toBe(10);
    expect(sum((tally) => tally.keysRefused)).toBe(ROUNDS * PROCESSES - 10);

    const check = createSqliteStore({ path });
    expect((await check.listApiKeys('proj_mp')).length).toBe(10);
    // The sends of all processes numbered the browser's attempts 1..ROUNDS, each number once.
    const deliveries = await check.listDeliveries({ browserId: 'brw_mp', now: Date.now() });
    expect(deliveries.map((delivery) => delivery.seq)).toEqual(Array.from({ length: ROUNDS }, (_, i) => i + 1));
    await check.close();
  });
});
