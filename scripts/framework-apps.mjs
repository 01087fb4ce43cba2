// The Next.js and NestJS examples (examples/next, examples/nestjs) as a user builds them: each
// copied to a folder outside the repository, its `file:` dependencies on the repository's packages
// replaced by the packed tarballs, installed from the registry beside them, built by its own build
// (`next build`, which checks the TypeScript of the app strictly; `tsc` for NestJS, strict, with
// skipLibCheck off), then run as the embedded apps are (scripts/embedded-apps.mjs): a connect
// token, a stream opened with it, a send in process that reaches it, and SIGTERM with the stream
// open, after which the app ends by itself. Called by scripts/check-packages.mjs, which packs.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runApp, runCommand } from './embedded-apps.mjs';
import { root } from './workspaces.mjs';

/**
 * Each example: its folder, how it starts (node arguments, `{port}` a free port), and the exit
 * code it ends with after SIGTERM: `next start` exits with 143 (128 + SIGTERM) once its server
 * has closed; the NestJS app with 0 (`enableShutdownHooks` with `useProcessExit`).
 */
export const FRAMEWORK_APPS = {
  next: {
    dir: 'examples/next',
    start: ['node_modules/next/dist/bin/next', 'start', '-H', '127.0.0.1', '-p', '{port}'],
    exitCode: 143,
  },
  nestjs: { dir: 'examples/nestjs', start: ['dist/main.js'], exitCode: 0 },
};

/** npm without its funding notices; Next.js without its telemetry. */
const ENV = { ...process.env, npm_config_fund: 'false', NEXT_TELEMETRY_DISABLED: '1' };

/** The example's package.json with each `file:` dependency on a repository package replaced by its tarball. */
function withTarballs(manifest, tarballs) {
  const dependencies = { ...manifest.dependencies };
  for (const [name, spec] of Object.entries(dependencies)) {
    if (!spec.startsWith('file:')) continue;
    const tarball = tarballs.get(name);
    if (!tarball) throw new Error(`${manifest.name}: no packed ${name}`);
    dependencies[name] = `file:${tarball}`;
  }
  return { ...manifest, dependencies };
}

/** Copies, installs, builds and runs one example; one `{ name, ok, output }` per step. */
async function checkFrameworkApp(base, framework, { dir, start, exitCode }, tarballs) {
  const results = [];
  const step = (name, result) => {
    results.push({ name: `${framework} example: ${name}`, ...result });
    return result.ok;
  };
  const app = join(base, framework);
  const source = join(root, dir);
  cpSync(source, app, {
    recursive: true,
    filter: (path) => !/[/\\](node_modules|\.next|dist)$/.test(path) && !/tidings\.db/.test(path),
  });
  const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
  writeFileSync(join(app, 'package.json'), JSON.stringify(withTarballs(manifest, tarballs), null, 2));
  const install = ['install', '--ignore-scripts', '--no-audit', '--prefer-offline', '--loglevel=error'];
  if (!step('npm install of the packed packages', await runCommand('npm', install, app, ENV))) return results;
  if (!step('npm run build, strict types', await runCommand('npm', ['run', 'build'], app, ENV))) return results;
  step('runs, sends in process, shuts down', await runApp(app, start, { exitCode, env: ENV }));
  return results;
}

/** Checks every example of {@link FRAMEWORK_APPS} side by side; one `{ name, ok, output }` per step. */
export async function checkFrameworkApps(tarballs) {
  const base = mkdtempSync(join(tmpdir(), 'tidings-framework-apps-'));
  try {
    const checks = Object.entries(FRAMEWORK_APPS).map(([framework, app]) =>
      checkFrameworkApp(base, framework, app, tarballs),
    );
    return (await Promise.all(checks)).flat();
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
