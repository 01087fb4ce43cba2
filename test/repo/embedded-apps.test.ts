import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPS, linesOfCode, MOST_LINES } from '../../scripts/embedded-apps.mjs';

/**
 * The embedded apps (Express, Hono, Fastify, and Express with Prisma) that
 * `npm run check:packages` compiles and runs from the packed packages: how their lines are
 * counted, and that each stays within its count here too.
 */
const root = join(import.meta.dirname, '..', '..');

describe('the embedded apps', () => {
  it('count lines of code: not blank lines, not comment lines', () => {
    expect(linesOfCode('// a comment\n\nconst a = 1;\n  // indented comment\nconst b = 2; // trailing\n')).toBe(2);
  });

  it.each(Object.entries(APPS))('the %s app takes at most its lines and sends in process', async (name, app) => {
    const source = await readFile(join(root, 'scripts', 'consumer-apps', app.file), 'utf8');
    expect(linesOfCode(source)).toBeLessThanOrEqual(app.mostLines ?? MOST_LINES);
    expect(MOST_LINES).toBe(25);
    // Only the Prisma app, with its client and its transaction, takes more.
    expect(app.mostLines ?? MOST_LINES).toBe(name === 'prisma' ? 35 : 25);
    expect(source).toContain("project: 'my-app'");
    expect(source).toContain('tidings.notifications.send(');
    expect(source).not.toMatch(/apiKey|sk_(live|test)_/);
  });
});
