#!/usr/bin/env node
// Adds to package-lock.json the platform-specific optional packages (biome, rollup, …) that an
// install could not resolve on this machine, so that `npm ci` accepts the lockfile on every
// platform. Each entry carries its os/cpu/libc, so a platform skips the others' binaries and
// fetches its own. Idempotent; run after `npm install` when dependencies change.
import { readFileSync, writeFileSync } from 'node:fs';

const OSES = ['aix', 'android', 'darwin', 'freebsd', 'linux', 'netbsd', 'openbsd', 'openharmony', 'sunos', 'win32'];
const CPUS = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  loong64: 'loong64',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
};

/** `linux-arm-musleabihf` → { os: linux, cpu: arm, libc: musl }; null when the name is no platform. */
function platformOf(name) {
  const words = name.split('/').pop().split('-');
  const os = words.find((word) => OSES.includes(word));
  const cpu = words.map((word) => CPUS[word]).find(Boolean);
  if (!os || !cpu) return null;
  const platform = { os: [os], cpu: [cpu] };
  if (os === 'linux') {
    if (words.some((word) => word.startsWith('musl'))) platform.libc = ['musl'];
    else if (words.some((word) => word.startsWith('gnu'))) platform.libc = ['glibc'];
  }
  return platform;
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location}/node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (lock.packages[nested] || lock.packages[hoisted]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[hoisted] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
}
// npm orders entries with localeCompare; the root entry ('') stays first.
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => a.localeCompare(b, 'en')));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);
