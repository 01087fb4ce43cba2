import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const report = (...args: string[]) => run(process.execPath, [join(repo, 'bench/report.js'), ...args], { cwd: repo });

/** Two rows of one run of a bench called `demo`, as bench/lib/common.js's `report` appends them. */
const line = (benchmark: string, figureText: string, ratio: number) =>
  JSON.stringify({
    bench: 'demo',
    run: '2026-12-07T10:00:00.000Z',
    date: '2026-12-07T10:01:00.000Z',
    loadavg: [3.5, 2, 1],
    cpus: 2,
    options: { BENCH_ROUNDS: '1' },
    benchmark,
    figureText,
    baselineName: 'bare',
    baselineText: '100 req/s',
    ratio,
    targetText: '≥ 0.5×',
    met: ratio >= 0.5,
    node: 'v24.0.0',
  });

describe('bench/report.js', () => {
  let dir = '';
  let readme = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tidings-bench-report-'));
    readme = join(dir, 'README.md');
    // An older run first: only the newest run of a file makes the table.
    const older = line('send', '10 req/s', 0.1).replace('2026-12-07T10:00', '2026-12-06T10:00');
    writeFileSync(
      join(dir, 'demo.jsonl'),
      [older, line('send', '60 req/s', 0.6), line('read', '40 req/s', 0.4)].join('\n'),
    );
    writeFileSync(readme, '# Demo\n\n<!-- figures:demo -->\n<!-- /figures -->\n\nAfter.\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('agrees with the committed README and results', async () => {
    await expect(report('--check')).resolves.toBeDefined();
  });

  it('writes the newest run between the markers and leaves the rest alone', async () => {
    await expect(report('--check', '--readme', readme, '--results', dir)).rejects.toThrow(/figures of demo differ/);
    await report('--readme', readme, '--results', dir);
    const text = readFileSync(readme, 'utf8');
    expect(text).toMatch(/^# Demo\n\n<!-- figures:demo -->\nRun of 2026-12-07 10:00 UTC; Node\.js v24\.0\.0;/);
    expect(text).toContain('load average (1 min) 3.5; options `BENCH_ROUNDS=1`.');
    expect(text).toContain('| send   | 60 req/s | bare 100 req/s | 0.60× | ≥ 0.5× | met    |');
    expect(text).toContain('| read   | 40 req/s | bare 100 req/s | 0.40× | ≥ 0.5× | missed |');
    expect(text).not.toContain('10 req/s');
    expect(text).toMatch(/\|\n\n<!-- \/figures -->\n\nAfter\.\n$/);
    await expect(report('--check', '--readme', readme, '--results', dir)).resolves.toBeDefined();
  });

  it('fails the check when a figure was edited by hand', async () => {
    const edited = join(dir, 'EDITED.md');
    writeFileSync(edited, readFileSync(readme, 'utf8').replace('60 req/s', '90 req/s'));
    await expect(report('--check', '--readme', edited, '--results', dir)).rejects.toThrow(/figures of demo differ/);
  });

  it('fails the check when a table has no results', async () => {
    const orphan = join(dir, 'ORPHAN.md');
    writeFileSync(orphan, '<!-- figures:nothing -->\n<!-- /figures -->\n');
    await expect(report('--check', '--readme', orphan, '--results', dir)).rejects.toThrow(/no results for/);
  });
});
