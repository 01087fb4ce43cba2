// The one-app setup as a new user writes it: an Express, a Hono and a Fastify app, and an Express
// app on PostgreSQL whose send joins a Prisma transaction (scripts/consumer-apps/*.ts) that embed Tidings with a project of their own and send in process,
// each in at most 25 lines of code (35 for the Prisma one), compiled with `tsc --strict --skipLibCheck false` as an ES
// module and as CommonJS, then run: a connect token, a stream opened with it, a send in process
// that reaches the stream, and SIGTERM with the stream open, after which the process ends by
// itself. Called by scripts/consumer-apps.mjs in an app that has installed the packed packages.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { root } from './workspaces.mjs';

/** The most lines of code (not blank, not only a comment) an app may take. */
export const MOST_LINES = 25;
/**
 * The frameworks an app is written for, each with the libraries it installs beside the packages.
 * The Prisma app (Express on PostgreSQL, its send in a Prisma transaction) takes a few lines more
 * (`mostLines`): its client, a database it waits for, and a transaction; it runs on a database of
 * its own (`database`, with the app's `greetings` table), with its client generated first.
 */
export const APPS = {
  express: { file: 'express-app.ts', packages: ['@tidings/express'], libraries: ['express'] },
  hono: { file: 'hono-app.ts', packages: ['@tidings/hono'], libraries: ['hono', '@hono/node-server'] },
  fastify: { file: 'fastify-app.ts', packages: ['@tidings/fastify'], libraries: ['fastify'] },
  prisma: {
    file: 'prisma-app.ts',
    packages: ['@tidings/express', '@tidings/store-postgres'],
    libraries: ['express', 'prisma', '@prisma/client', '@prisma/adapter-pg', 'pg'],
    mostLines: 35,
    // In a folder of its own beside the others: @prisma/adapter-pg brings @types/pg, which the
    // other apps' compile must go without.
    ownInstall: true,
    database: 'CREATE TABLE greetings (id serial PRIMARY KEY, recipient text NOT NULL)',
    prismaSchema: 'prisma-app.prisma',
  },
};

/** The version of `name` the repository builds with (its node_modules). */
export const versionOf = (name) =>
  JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

/** The PostgreSQL the Prisma app runs on, as the tests find it. */
const databaseUrl = process.env.TIDINGS_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
/** The environment under which `prisma generate` reaches no server of Prisma's (docs/transactions.md). */
const PRISMA_OFFLINE_ENV = {
  PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
  PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};

/** The lines of code of a TypeScript source: neither blank nor only a `//` comment. */
export function linesOfCode(source) {
  return source.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//')).length;
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** Reads `body` until its text so far holds `wanted`, or fails after `timeoutMs`. */
async function readUntil(reader, seen, wanted, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  const decoder = new TextDecoder();
  while (!seen.text.includes(wanted)) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`the stream did not send ${wanted}; it sent: ${seen.text}`);
    const chunk = await Promise.race([reader.read(), new Promise((resolve) => setTimeout(resolve, left))]);
    if (!chunk) continue;
    if (chunk.done) throw new Error(`the stream ended before ${wanted}; it sent: ${seen.text}`);
    seen.text += decoder.decode(chunk.value, { stream: true });
  }
}

/**
 * Runs an app in `dir` (`node` with `args`, where `{port}` stands for a free port, also given as
 * `PORT`, with `env`) and drives it through a token, a stream, a send in process and a SIGTERM
 * with the stream open, after which it must exit by itself with `exitCode`.
 */
export async function runApp(dir, args, { env = {}, exitCode = 0 } = {}) {
  const port = await freePort();
  const file = args.join(' ');
  const child = spawn(
    process.execPath,
    args.map((arg) => arg.replace('{port}', String(port))),
    { cwd: dir, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit');
  const base = `http://127.0.0.1:${port}`;
  try {
    let minted = null;
    for (const deadline = Date.now() + 30_000; minted === null && Date.now() < deadline; ) {
      minted = await fetch(`${base}/token/ada`, { method: 'POST' }).then(
        async (answer) => (answer.ok ? await answer.json() : null),
        () => null,
      );
      if (minted === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (minted === null) throw new Error('the app did not answer POST /token/ada');
    if (minted.connect_url !== `${base}/notify/v1/connect/${minted.token}`) {
      throw new Error(`connect_url ${minted.connect_url} does not carry the mount path /notify`);
    }
    const stream = await fetch(minted.connect_url);
    const reader = stream.body.getReader();
    const seen = { text: '' };
    await readUntil(reader, seen, 'event: ready');
    const sent = await fetch(`${base}/hello/ada`, { method: 'POST' });
    if (sent.status !== 201) throw new Error(`POST /hello/ada answered ${sent.status}: ${await sent.text()}`);
    const { id } = await sent.json();
    await readUntil(reader, seen, `"notification_id":"${id}"`);
    child.kill('SIGTERM');
    const [code, signal] = await Promise.race([
      exited,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no exit 10 s after SIGTERM')), 10_000)),
    ]);
    if (code !== exitCode) throw new Error(`exited with ${code ?? signal} after SIGTERM`);
    return {
      ok: true,
      output: `${file}: token, stream, send ${id} received, SIGTERM, exit ${exitCode}\n${output}`.trim(),
    };
  } catch (error) {
    return { ok: false, output: `${file}: ${error.message}\n${output}`.trim() };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/**
 * Runs `command` with `args` in `cwd`: `ok` when it exited with 0, and `output`, the command line
 * then what it wrote to stdout and stderr.
 */
export function runCommand(command, args, cwd, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const done = (ok) => resolve({ ok, output: `$ ${command} ${args.join(' ')}\n${output}`.trim() });
    child.on('error', (error) => {
      output += error.message;
      done(false);
    });
    child.on('close', (code) => done(code === 0));
  });
}

/**
 * The app of `framework` (its source `file`) as a package of `type` (`module` or `commonjs`) in
 * `app`: compiled, checked to be emitted as that type, and run. One `{ name, ok, output }` per check.
 */
async function checkApp(app, home, framework, file, type) {
  const results = [];
  const { prismaSchema, database } = APPS[framework];
  const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
  const flags = ['--strict', '--skipLibCheck', 'false', '--module', 'nodenext', '--target', 'es2022'];
  const dir = join(home, `${framework}-${type}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type }));
  copyFileSync(join(root, 'scripts', 'consumer-apps', file), join(dir, 'app.ts'));
  const name = `${framework} app as ${type === 'module' ? 'an ES module' : 'CommonJS'}`;
  if (prismaSchema) {
    // The client as the app's module format makes it: `import.meta` in an ES module, `__dirname` in CommonJS.
    const schema = readFileSync(join(root, 'scripts', 'consumer-apps', prismaSchema), 'utf8');
    writeFileSync(join(dir, 'schema.prisma'), schema.replace('{moduleFormat}', type === 'module' ? 'esm' : 'cjs'));
    const cli = join(home, 'node_modules', 'prisma', 'build', 'index.js');
    const generated = await runCommand(process.execPath, [cli, 'generate', '--schema', 'schema.prisma'], dir, {
      ...process.env,
      ...PRISMA_OFFLINE_ENV,
    });
    results.push({ name: `${name}: prisma generate, with nothing but the npm registry`, ...generated });
    if (!generated.ok) return results;
  }
  const compiled = await runCommand(process.execPath, [tsc, ...flags, 'app.ts'], dir);
  results.push({ name: `${name}: tsc --strict --skipLibCheck false`, ...compiled });
  if (!compiled.ok) return results;
  const emitted = readFileSync(join(dir, 'app.js'), 'utf8');
  const isCommonJs = /\brequire\("@tidings\/core"\)/.test(emitted);
  if (isCommonJs !== (type === 'commonjs')) {
    results.push({ name: `${name}: emitted as ${type}`, ok: false, output: emitted });
    return results;
  }
  if (!database) {
    results.push({ name: `${name}: runs, sends in process, shuts down`, ...(await runApp(dir, ['app.js'])) });
    return results;
  }
  const own = await privateDatabase(`${framework}_${type}`, database);
  if (!own.url) {
    results.push({ name: `${name}: a database of its own`, ...own });
    return results;
  }
  try {
    const ran = await runApp(dir, ['app.js'], { env: { DATABASE_URL: own.url } });
    results.push({ name: `${name}: runs on PostgreSQL, sends in process, shuts down`, ...ran });
  } finally {
    await own.drop();
  }
  return results;
}

/**
 * A database of the check's own on the tests' PostgreSQL, made with `setup` run in it; `drop()`
 * removes it. Without a PostgreSQL there, `ok` is false unless services may be missing
 * (`TIDINGS_TEST_REQUIRE_SERVICES` unset, a laptop): the app is then not run, and says so.
 */
async function privateDatabase(label, setup) {
  const { default: pg } = await import('pg');
  const name = `tidings_packaging_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  try {
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    await admin.end().catch(() => {});
    const required = process.env.TIDINGS_TEST_REQUIRE_SERVICES === '1';
    return { ok: !required, output: `no PostgreSQL at ${databaseUrl} (${error.message}): not run` };
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const app = new pg.Client({ connectionString: url.toString() });
  await app.connect();
  await app.query(setup);
  await app.end();
  return {
    ok: true,
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * In `app` (a directory whose node_modules holds the packed packages, each framework's libraries,
 * TypeScript and @types/node and @types/express): counts each app's lines, compiles it as an ES
 * module and as CommonJS, and runs it. One `{ name, ok, output }` per check.
 */
export async function checkEmbeddedApps(app) {
  const results = [];
  for (const [framework, { file }] of Object.entries(APPS)) {
    const source = readFileSync(join(root, 'scripts', 'consumer-apps', file), 'utf8');
    const lines = linesOfCode(source);
    const most = APPS[framework].mostLines ?? MOST_LINES;
    results.push({
      name: `${framework} app: ${lines} lines of code (at most ${most})`,
      ok: lines <= most,
      output: source,
    });
    // An app with libraries of its own installs them in its own folder, whose node_modules its
    // builds see before the shared one.
    let home = app;
    if (APPS[framework].ownInstall) {
      home = join(app, framework);
      mkdirSync(home);
      writeFileSync(join(home, 'package.json'), JSON.stringify({ private: true }));
      const libraries = APPS[framework].libraries.map((name) => `${name}@${versionOf(name)}`);
      const install = ['install', '--ignore-scripts', '--no-audit', '--prefer-offline', '--loglevel=error'];
      const installed = await runCommand('npm', [...install, ...libraries], home, {
        ...process.env,
        npm_config_fund: 'false',
      });
      results.push({ name: `${framework} app: npm install of its libraries, in a folder of its own`, ...installed });
      if (!installed.ok) continue;
    }
    // The ES module and the CommonJS build side by side: each compile is one core's work.
    const builds = await Promise.all(['module', 'commonjs'].map((type) => checkApp(app, home, framework, file, type)));
    results.push(...builds.flat());
  }
  return results;
}
