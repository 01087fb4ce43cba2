// The repository's workspaces, in the root package.json's order (which is the build order), each
// with its directory and parsed manifest. Plain JavaScript with no dependency: the build and the
// packaging checks read it before or without an install.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory. */
export const root = fileURLToPath(new URL('..', import.meta.url));

/** The directories a workspace entry names: `packages/core`, or each folder of `examples/*`. */
function expand(entry) {
  if (!entry.endsWith('/*')) return [entry];
  const parent = entry.slice(0, -2);
  return readdirSync(join(root, parent), { withFileTypes: true })
    .filter((dirent) => dirent.isDirectory())
    .map((dirent) => `${parent}/${dirent.name}`);
}

/** Every workspace that has a package.json: `{ dir, manifest }`, `dir` relative to the root. */
export function workspaces() {
  const { workspaces: entries } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return entries
    .flatMap(expand)
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) }));
}
