import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The packages the web dashboard is built on: none of them may know it. */
const BELOW_THE_DASHBOARD = ['core', 'store-sqlite', 'store-postgres', 'redis', 'metrics'];

/** What a UI package is published as: the dashboard, and the CLI that serves it. */
const UI_PACKAGES = ['@tidings/dashboard', 'tidings'];

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * A UI package depends on the stores, never the other way round: the dashboard keeps its tables
 * on a store's database through what the store offers (`store.capabilities.database`), so a store
 * package names it nowhere, neither in its manifest nor in an import of its sources or tests.
 */
describe('dependency direction', () => {
  it.each(BELOW_THE_DASHBOARD)('packages/%s names no UI package in its manifest', (dir) => {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as Manifest;
    const named = [
      manifest.dependencies,
      manifest.devDependencies,
      manifest.peerDependencies,
      manifest.optionalDependencies,
    ].flatMap((field) => Object.keys(field ?? {}));
    expect(named.filter((name) => UI_PACKAGES.includes(name))).toEqual([]);
  });

  it.each(BELOW_THE_DASHBOARD)('packages/%s imports no UI package', (dir) => {
    const files = globSync('**/*.{ts,tsx}', {
      cwd: join(root, 'packages', dir),
      exclude: ['node_modules/**', 'dist/**'],
    });
    expect(files.length).toBeGreaterThan(0);
    const importing = files.filter((file) => {
      const source = readFileSync(join(root, 'packages', dir, file), 'utf8');
      return /(from|import\()\s*['"](@tidings\/dashboard|tidings)(\/[^'"]*)?['"]/.test(source);
    });
    expect(importing).toEqual([]);
  });
});
