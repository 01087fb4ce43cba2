import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

/**
 * A workspace package is one entry in package.json's workspaces; its entry points are listed once,
 * in tsconfig.json's `paths`, from which the tests' aliases are derived (vitest.shared.ts). This
 * checks that list against every package's `exports`, so a new package or export that was not
 * added fails here rather than resolving to a stale build.
 */
describe('workspace entries', () => {
  const { workspaces } = read('package.json') as { workspaces: string[] };
  const paths = (read('tsconfig.json') as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions
    .paths;
  const packages = workspaces.filter((dir) => dir.startsWith('packages/'));

  it.each(packages)('%s: every export is a tsconfig path to an existing source', (dir) => {
    const manifest = read(`${dir}/package.json`) as { name: string; exports?: Record<string, unknown> };
    // A built file exported as it is (the browser SDK's script-tag build) has no source entry.
    const subpaths = Object.keys(manifest.exports ?? {}).filter((subpath) => !/\.(json|js)$/.test(subpath));
    for (const subpath of subpaths) {
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      const target = paths[specifier]?.[0];
      expect(target, `tsconfig.json paths lacks ${specifier}`).toBeDefined();
      expect(target!.startsWith(`${dir}/src/`), `${specifier} → ${target}`).toBe(true);
      expect(existsSync(join(root, target!)), `${target} exists`).toBe(true);
    }
  });

  it('names no path that is not an export of a workspace package or the test support', () => {
    const exported = new Set<string>();
    for (const dir of packages) {
      const manifest = read(`${dir}/package.json`) as { name: string; exports?: Record<string, unknown> };
      for (const subpath of Object.keys(manifest.exports ?? {})) {
        exported.add(subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`);
      }
    }
    const stray = Object.keys(paths).filter((specifier) => !exported.has(specifier) && !specifier.endsWith('/*'));
    expect(stray).toEqual([]);
  });
});
