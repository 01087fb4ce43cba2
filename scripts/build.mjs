#!/usr/bin/env node
// Builds every workspace that has a build script, and skips a workspace whose build is already up
// to date: its own sources and configuration, the build of each workspace it depends on, and the
// lockfile hash the same as when its build last succeeded. So `npm test` and `npm run test:browser`
// after `npm ci` (whose `prepare` built everything) build nothing again, while an edited package
// and the packages that build on it are rebuilt. A workspace builds once every workspace it depends
// on has built; as many build side by side as the machine has cores (at most 4), since most of a
// build is one process type-checking on one core. Each build's output is printed when it ends.
//
//   node scripts/build.mjs [--force]     (npm run build [-- --force])
//
// The hashes live in node_modules/.cache/tidings-build/, outside the published dist/ folders; a
// dist/ that is missing rebuilds its package whatever the hash says. With TIDINGS_STEP_TIMES set
// to a file, the time of the whole build is appended to it as one line of JSON, a part of the step
// TIDINGS_STEP_WITHIN names (.ci/run's table).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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

/** The builds to run: each with the workspaces of this repository it depends on. */
const pending = [];
for (const { dir, manifest } of workspaces()) {
  const hash = createHash('sha256');
  for (const content of shared) hash.update(content);
  for (const file of inputFiles(join(root, dir))) {
    hash.update(`\0${file}\0`);
    hash.update(readFileSync(join(root, dir, file)));
  }
  const dependencies = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies };
  const local = Object.keys(dependencies)
    .sort()
    .filter((name) => hashes.has(name));
  for (const name of local) hash.update(`\0${name}\0${hashes.get(name)}`);
  const digest = hash.digest('hex');
  hashes.set(manifest.name, digest);
  if (!manifest.scripts?.build) continue;

  const stampPath = join(cacheDir, `${manifest.name.replace('/', '+')}.sha256`);
  const upToDate =
    !force &&
    existsSync(join(root, dir, 'dist')) &&
    existsSync(stampPath) &&
    readFileSync(stampPath, 'utf8') === digest;
  if (!upToDate) pending.push({ dir, name: manifest.name, digest, stampPath, local });
}

/** Runs one workspace's build script; resolves with its exit status and everything it printed. */
function runBuild({ dir }) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', 'build', '--silent'], {
      cwd: join(root, dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => resolve({ status: code ?? signal, output: Buffer.concat(output) }));
  });
}

/** Builds running at once: one a core, at most 4. */
let free = Math.min(4, Math.max(1, availableParallelism()));
const waiting = [];
function slot() {
  if (free > 0) {
    free--;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}
function release() {
  const next = waiting.shift();
  if (next) next();
  else free++;
}

const building = new Map(); // name → the promise of its build
let failed = null;
/** Builds one workspace once those it depends on are built (those that are rebuilt, that is). */
async function build(entry) {
  await Promise.all(entry.local.map((name) => building.get(name)));
  if (failed) return;
  await slot();
  try {
    if (failed) return;
    console.log(`build: ${entry.name}`);
    // A build that fails half-way must not be taken for a finished one next time.
    rmSync(entry.stampPath, { force: true });
    const { status, output } = await runBuild(entry);
    process.stdout.write(output);
    if (status !== 0) {
      failed ??= `build: ${entry.name} failed (exit ${status})`;
      return;
    }
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(entry.stampPath, entry.digest);
  } finally {
    release();
  }
}
for (const entry of pending) building.set(entry.name, build(entry));
await Promise.all(building.values());
if (failed) {
  console.error(failed);
  process.exit(1);
}
const built = pending.length;

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
