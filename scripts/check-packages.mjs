#!/usr/bin/env node
// Packaging checks over every published workspace, on one pack of each (npm pack, as npm would
// publish it): publint (the package.json and the files it points to), @arethetypeswrong/cli (the
// types resolve as a consumer's TypeScript resolves them), and then the packed packages installed
// into two fresh apps outside the repository, as a user installs them (scripts/consumer-apps.mjs),
// and the Next.js and NestJS examples built and run on them (scripts/framework-apps.mjs).
// Workspaces are read from the root package.json, so a new package is checked without a change
// here. Run after the build.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkConsumerApps } from './consumer-apps.mjs';
import { checkFrameworkApps } from './framework-apps.mjs';
import { root, workspaces } from './workspaces.mjs';

const bin = (name) => join(root, 'node_modules', '.bin', name);

const packages = workspaces()
  // Private workspaces (the examples) are never published.
  .filter(({ manifest }) => manifest.private !== true);

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

const packed = mkdtempSync(join(tmpdir(), 'tidings-packed-'));
const keep = process.argv.includes('--keep');
try {
  // One npm process packs every package; each check below reads its tarball.
  const result = spawnSync(
    'npm',
    ['pack', '--json', '--pack-destination', packed, ...packages.flatMap(({ dir }) => ['--workspace', dir])],
    { cwd: root, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`npm pack failed:\n${result.stderr}`);
  const tarballs = new Map(JSON.parse(result.stdout).map(({ name, filename }) => [name, join(packed, filename)]));

  const failed = [];
  for (const { dir, manifest } of packages) {
    const tarball = tarballs.get(manifest.name);
    // Every package is ES modules: `require()` loads them on Node.js 22.12 and later (checked by
    // test/repo/require-esm.test.ts and by the CommonJS app below), which attw's CommonJS
    // resolution does not model, and the pre-exports node10 resolution is not offered.
    const checks = [
      ['publint', run(bin('publint'), ['run', tarball, '--strict'], root)],
      ['attw', run(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii', '--no-color'], root)],
    ];
    for (const [tool, { ok, output }] of checks) {
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${tool} ${manifest.name} (${dir})`);
      if (!ok) {
        console.log(output.replace(/^/gm, '    '));
        failed.push(`${tool} ${manifest.name}`);
      }
    }
  }
  // The framework examples after the consumer apps, not beside them: their builds and the apps'
  // compiles each take a core, and an app that starts on a machine busy with them may miss its
  // time to answer.
  const apps = [...(await checkConsumerApps(tarballs)), ...(await checkFrameworkApps(tarballs))];
  for (const { name, ok, output } of apps) {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}`);
    if (!ok) {
      console.log(output.replace(/^/gm, '    '));
      failed.push(name);
    }
  }
  console.log(`packaging: ${packages.length} packages checked, ${failed.length} checks with problems`);
  if (failed.length > 0) process.exitCode = 1;
} finally {
  if (keep) console.log(`packed: ${packed}`);
  else rmSync(packed, { recursive: true, force: true });
}
