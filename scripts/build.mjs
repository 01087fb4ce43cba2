#!/usr/bin/env node
// Builds every workspace that has a build script, in the root package.json's order, and skips a
// workspace whose build is already up to date: its own sources and configuration, the build of
// each workspace it depends on, and the lockfile hash the same as when its build last succeeded.
// So `npm test` and `npm run test:browser` after `npm ci` (whose `prepare` built everything) build
// nothing again, while an edited package and the packages that build on it are rebuilt.
//
//   node scripts/build.mjs [--force]     (npm run build [-- --force])
//
// The hashes live in node_modules/.cache/tidings-build/, outside the published dist/ folders; a
// dist/ that is missing rebuilds its package whatever the hash says. With TIDINGS_STEP_TIMES set
// to a file, the time of the whole build is appended to it as one line of JSON, a part of the step
// TIDINGS_STEP_WITHIN names (.ci/run's table).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root, workspaces } from './workspaces.mjs';

const cacheDir = join(root, 'node_modules', '.cache', 'tidings-build');
const force = process.argv.includes('--force');

/** What never feeds a build: its output, installed packages, and tests. */
function isBuildInput(name, isDirectory) {
  if (isDirectory) return !['dist', 'node_modules', 'test', '.turbo'].includes(name);
  return !/\.test\.tsx?$/.test(name);
}

/** Every input file of a workspace, relative to it, sorted. */
function inputFiles(dir, base = dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!isBuildInput(entry.name, entry.isDirectory())) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...inputFiles(path, base));
    else if (entry.isFile()) files.push(relative(base, path));
  }
  return files.sort();
}

const shared = ['tsconfig.base.json', 'package-lock.json'].map((file) => readFileSync(join(root, file)));
const hashes = new Map(); // package name → the hash its build was made from
const started = performance.now();
let built = 0;

for (const { dir, manifest } of workspaces()) {
  const hash = createHash('sha256');
  for (const content of shared) hash.update(content);
  for (const file of inputFiles(join(root, dir))) {
    hash.update(`\0${file}\0`);
    hash.update(readFileSync(join(root, dir, file)));
  }
  const dependencies = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies };
  for (const name of Object.keys(dependencies).sort()) {
    if (hashes.has(name)) hash.update(`\0${name}\0${hashes.get(name)}`);
  }
  const digest = hash.digest('hex');
  hashes.set(manifest.name, digest);
  if (!manifest.scripts?.build) continue;

  const stampPath = join(cacheDir, `${manifest.name.replace('/', '+')}.sha256`);
  const upToDate =
    !force &&
    existsSync(join(root, dir, 'dist')) &&
    existsSync(stampPath) &&
    readFileSync(stampPath, 'utf8') === digest;
  if (upToDate) continue;
  console.log(`build: ${manifest.name}`);
  // A build that fails half-way must not be taken for a finished one next time.
  rmSync(stampPath, { force: true });
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: join(root, dir), stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build: ${manifest.name} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(stampPath, digest);
  built++;
}

const seconds = (performance.now() - started) / 1000;
console.log(`build: ${built} of ${hashes.size} workspaces built in ${seconds.toFixed(1)} s`);
if (process.env.TIDINGS_STEP_TIMES) {
  const row = {
    step: `build (${built} of ${hashes.size} workspaces)`,
    seconds,
    within: process.env.TIDINGS_STEP_WITHIN,
  };
  appendFileSync(process.env.TIDINGS_STEP_TIMES, `${JSON.stringify(row)}\n`);
}
