import { globSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { browserTests, testProjects } from '../../vitest.shared.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const skipped = (path: string) => /(^|\/)(node_modules|dist)(\/|$)/.test(path);
const matching = (patterns: string[]) => new Set(globSync(patterns, { cwd: root, exclude: skipped }));

/**
 * `npm test` runs its files by project (vitest.shared.ts), so a test file that no project includes
 * would never run, and one that two include would run twice: every test file of the repository
 * belongs to exactly one project, or to the browser tests.
 */
describe('test projects', () => {
  const all = [...matching(['**/*.test.ts'])].sort();
  const groups = { ...testProjects, browser: browserTests };
  const members = Object.entries(groups).map(([name, patterns]) => [name, matching(patterns)] as const);

  it('finds the test files of every package and of test/', () => {
    expect(all.length).toBeGreaterThan(150);
    expect(all).toContain('packages/core/src/pipeline/router.test.ts');
    expect(all).toContain('test/deploy/three-instances.test.ts');
  });

  it('puts every test file in exactly one project', () => {
    const misplaced = all
      .map((file) => [file, members.filter(([, files]) => files.has(file)).map(([name]) => name)] as const)
      .filter(([, names]) => names.length !== 1)
      .map(([file, names]) => `${file}: ${names.length === 0 ? 'no project' : names.join(' and ')}`);
    expect(misplaced).toEqual([]);
  });
});
