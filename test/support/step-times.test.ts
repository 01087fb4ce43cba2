import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { formatTable, parseRows } from '../../scripts/step-table.mjs';
import { stepTimesReporter } from './step-times.js';

/** A test module of `project` with `tests` tests, as the reporter reads it. */
function moduleOf(project: string, tests: number): TestModule {
  return {
    project: { name: project },
    children: { allTests: () => Array.from({ length: tests }, () => ({}))[Symbol.iterator]() },
  } as unknown as TestModule;
}

describe('stepTimesReporter', () => {
  it("measures each project from its first file's start to its last file's end, and counts", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tidings-steps-'));
    try {
      const file = join(dir, 'steps.jsonl');
      let clock = 0;
      const reporter = stepTimesReporter({ file, within: 'tests (npm test)', now: () => clock });
      const [a, b, c] = [moduleOf('unit', 3), moduleOf('unit', 2), moduleOf('deploy', 1)];
      reporter.onTestModuleStart?.(a);
      clock = 500;
      reporter.onTestModuleStart?.(b);
      clock = 2_000;
      reporter.onTestModuleEnd?.(a);
      clock = 2_500;
      reporter.onTestModuleEnd?.(b);
      reporter.onTestModuleStart?.(c);
      clock = 10_000;
      reporter.onTestModuleEnd?.(c);
      await reporter.onTestRunEnd?.([], [], 'passed');
      const rows = (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(rows).toEqual([
        { step: 'project unit', within: 'tests (npm test)', seconds: 2.5, files: 2, tests: 5 },
        { step: 'project deploy', within: 'tests (npm test)', seconds: 7.5, files: 1, tests: 1 },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('writes nothing without a file', async () => {
    const reporter = stepTimesReporter({ file: '', now: () => 0 });
    reporter.onTestModuleStart?.(moduleOf('unit', 1));
    reporter.onTestModuleEnd?.(moduleOf('unit', 1));
    await reporter.onTestRunEnd?.([], [], 'passed');
    expect(reporter.rows()).toHaveLength(1);
  });
});

describe('the CI step table', () => {
  const text = [
    { step: 'build (11 of 13 workspaces)', seconds: 59.9, within: 'README commands' },
    { step: 'README commands', seconds: 95.04, status: 0 },
    { step: 'project unit', seconds: 61, files: 80, tests: 900, within: 'tests (npm test)' },
    { step: 'tests (npm test)', seconds: 190.5, status: 1 },
  ]
    .map((row) => JSON.stringify(row))
    .join('\n');

  it('puts the parts of a step under it, and marks the step that failed', () => {
    const table = formatTable(parseRows(text), 300).split('\n');
    expect(table[0]).toMatch(/^step\s+wall time\s+m:ss\s+counted$/);
    expect(table.slice(2)).toEqual([
      expect.stringMatching(/^README commands\s+95\.0 s\s+1:35$/),
      expect.stringMatching(/^ {2}build \(11 of 13 workspaces\)\s+59\.9 s\s+1:00$/),
      expect.stringMatching(/^tests \(npm test\)\s+190\.5 s\s+3:11\s+FAILED$/),
      expect.stringMatching(/^ {2}project unit\s+61\.0 s\s+1:01\s+80 files, 900 tests$/),
      expect.stringMatching(/^total\s+300\.0 s\s+5:00$/),
    ]);
  });
});
