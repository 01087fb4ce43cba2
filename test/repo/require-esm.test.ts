import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs helper shared with the build scripts, without types.
import { root, workspaces } from '../../scripts/workspaces.mjs';

/** Every entry point a published package offers to code (the script-tag builds and the service worker are for pages). */
const entries: string[] = (workspaces() as Array<{ manifest: { name: string; private?: boolean; exports?: object } }>)
  .filter(({ manifest }) => manifest.private !== true)
  .flatMap(({ manifest }) =>
    Object.keys(manifest.exports ?? {})
      .filter((subpath) => !/\.js$/.test(subpath))
      .map((subpath) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`)),
  );

/** The names an entry exports, as `require()` and as `import()` load it, from a process at the root. */
function exportsOf(entry: string): { required: string[]; imported: string[] } {
  const script = `
    const required = Object.keys(require(${JSON.stringify(entry)})).sort();
    import(${JSON.stringify(entry)}).then((m) => {
      console.log(JSON.stringify({ required, imported: Object.keys(m).filter((k) => k !== 'default').sort() }));
    });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' }));
}

describe('the packages from CommonJS', () => {
  it('offers every entry point of every published package', () => {
    expect(entries).toContain('@tidings/core');
    expect(entries).toContain('@tidings/core/store');
    expect(entries.length).toBeGreaterThanOrEqual(14);
  });

  // Node.js 22.12 and later load an ES module through require() when its exports map has a
  // condition require() matches (`default`): a CommonJS app needs no dynamic import().
  it.each(entries)('require(%j) loads the same names as import()', (entry) => {
    const { required, imported } = exportsOf(entry);
    expect(required.length).toBeGreaterThan(0);
    expect(required).toEqual(imported);
  });
});
