#!/usr/bin/env node
// Packaging checks over every published workspace: publint (the package.json and the files it
// points to) and @arethetypeswrong/cli (the types resolve as a consumer's TypeScript resolves
// them). Workspaces are read from the root package.json, so a new package is checked without
// a change here. Run after the build: both pack the package as npm would publish it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root, workspaces } from './workspaces.mjs';

const bin = (name) => join(root, 'node_modules', '.bin', name);

const packages = workspaces()
  // Private workspaces (the examples) are never published.
  .filter(({ manifest }) => manifest.private !== true);

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

const failed = [];
for (const { dir, manifest } of packages) {
  const cwd = join(root, dir);
  // Every package is ES modules: `require()` loads them on Node.js 22.12 and later (checked by
  // test/repo/require-esm.test.ts), which attw's CommonJS resolution does not model, and the
  // pre-exports node10 resolution is not offered.
  const checks = [
    ['publint', run(bin('publint'), ['run', '--strict'], cwd)],
    ['attw', run(bin('attw'), ['--pack', '.', '--profile', 'esm-only', '--format', 'ascii', '--no-color'], cwd)],
  ];
  for (const [tool, { ok, output }] of checks) {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${tool} ${manifest.name} (${dir})`);
    if (!ok) {
      console.log(output.replace(/^/gm, '    '));
      failed.push(`${tool} ${manifest.name}`);
    }
  }
}
console.log(`packaging: ${packages.length} packages checked, ${failed.length} checks with problems`);
if (failed.length > 0) process.exit(1);
