import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const { compilerOptions } = JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8')) as {
  compilerOptions: { paths: Record<string, [string]> };
};

/** `@tidings/core/testing` → `^@tidings\/core\/testing$`; a trailing `*` matches the rest of the path. */
function pattern(specifier: string): RegExp {
  const escaped = specifier.replace(/[.*+?^${}()|[\]\\/]/g, (char) => (char === '*' ? '(.*)' : `\\${char}`));
  return new RegExp(`^${escaped}$`);
}

/**
 * Tests import the packages' sources, so no build is needed to run them: every alias comes from
 * tsconfig.json's `paths`, the one list of the workspace's entry points (a test checks it against
 * the packages' `exports`).
 */
export const alias = Object.entries(compilerOptions.paths)
  // The longest first, so that `@tidings/core/testing` wins over `@tidings/core`.
  .sort(([a], [b]) => b.length - a.length)
  .map(([specifier, [target]]) => ({ find: pattern(specifier), replacement: `${root}${target.replace('*', '$1')}` }));
