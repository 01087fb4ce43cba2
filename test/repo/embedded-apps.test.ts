import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPS, linesOfCode, MOST_LINES } from '../../scripts/embedded-apps.mjs';

/**
 * The embedded Express and Hono apps that `npm run check:packages` compiles and runs from the
 * packed packages: how their lines are counted, and that each stays within the count here too.
 */
const root = join(import.meta.dirname, '..', '..');

describe('the embedded apps', () => {
  it('count lines of code: not blank lines, not comment lines', () => {
    expect(linesOfCode('// a comment\n\nconst a = 1;\n  // indented comment\nconst b = 2; // trailing\n')).toBe(2);
  });

  it.each(Object.entries(APPS))('the %s app takes at most 25 lines and sends in process', async (_, { file }) => {
    const source = await readFile(join(root, 'scripts', 'consumer-apps', file), 'utf8');
    expect(linesOfCode(source)).toBeLessThanOrEqual(MOST_LINES);
    expect(MOST_LINES).toBe(25);
    expect(source).toContain("project: 'my-app'");
    expect(source).toContain('tidings.notifications.send(');
    expect(source).not.toMatch(/apiKey|sk_(live|test)_/);
  });
});
