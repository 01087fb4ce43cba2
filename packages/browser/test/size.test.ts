import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * The script-tag build is what a page downloads before it can show anything: its gzipped size is
 * a budget, checked here on the built file (`npm test` builds first) and printed in the README.
 */
const globalBuild = fileURLToPath(new URL('../dist/tidings.global.js', import.meta.url));

/** The budget, in bytes of gzip at its default level (what `npm run size` prints). */
const budgetBytes = 5119; // under 5 KiB

describe('the script-tag build', () => {
  it(`stays within ${budgetBytes} bytes gzipped`, () => {
    if (!existsSync(globalBuild)) throw new Error(`${globalBuild} is missing: run \`npm run build\` first`);
    const gzipped = gzipSync(readFileSync(globalBuild)).length;
    expect(gzipped).toBeGreaterThan(1000); // a build that lost its content is no success either
    expect(gzipped).toBeLessThanOrEqual(budgetBytes);
  });
});
