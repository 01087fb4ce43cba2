// The one-app setup as a new user writes it: an Express, a Hono and a Fastify app
// (scripts/consumer-apps/*.ts) that embed Tidings with a project of their own and send in process,
// each in at most 25 lines of code, compiled with `tsc --strict --skipLibCheck false` as an ES
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
/** The frameworks an app is written for, each with the libraries it installs beside the packages. */
export const APPS = {
  express: { file: 'express-app.ts', packages: ['@tidings/express'], libraries: ['express'] },
  hono: { file: 'hono-app.ts', packages: ['@tidings/hono'], libraries: ['hono', '@hono/node-server'] },
  fastify: { file: 'fastify-app.ts', packages: ['@tidings/fastify'], libraries: ['fastify'] },
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

/** Runs a compiled app in `dir` and drives it through a token, a stream, a send and a SIGTERM. */
async function runApp(dir, file) {
  const port = await freePort();
  const child = spawn(process.execPath, [file], {
    cwd: dir,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit');
  const base = `http://127.0.0.1:${port}`;
  try {
    let minted = null;
    for (const deadline = Date.now() + 15_000; minted === null && Date.now() < deadline; ) {
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
    if (code !== 0) throw new Error(`exited with ${code ?? signal} after SIGTERM`);
    return { ok: true, output: `${file}: token, stream, send ${id} received, SIGTERM, exit 0\n${output}`.trim() };
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
async function checkApp(app, framework, file, type) {
  const results = [];
  const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
  const flags = ['--strict', '--skipLibCheck', 'false', '--module', 'nodenext', '--target', 'es2022'];
  const dir = join(app, `${framework}-${type}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type }));
  copyFileSync(join(root, 'scripts', 'consumer-apps', file), join(dir, 'app.ts'));
  const compiled = await runCommand(process.execPath, [tsc, ...flags, 'app.ts'], dir);
  const name = `${framework} app as ${type === 'module' ? 'an ES module' : 'CommonJS'}`;
  results.push({ name: `${name}: tsc --strict --skipLibCheck false`, ...compiled });
  if (!compiled.ok) return results;
  const emitted = readFileSync(join(dir, 'app.js'), 'utf8');
  const isCommonJs = /\brequire\("@tidings\/core"\)/.test(emitted);
  if (isCommonJs !== (type === 'commonjs')) {
    results.push({ name: `${name}: emitted as ${type}`, ok: false, output: emitted });
    return results;
  }
  results.push({ name: `${name}: runs, sends in process, shuts down`, ...(await runApp(dir, 'app.js')) });
  return results;
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
    results.push({
      name: `${framework} app: ${lines} lines of code (at most ${MOST_LINES})`,
      ok: lines <= MOST_LINES,
      output: source,
    });
    // The ES module and the CommonJS build side by side: each compile is one core's work.
    const builds = await Promise.all(['module', 'commonjs'].map((type) => checkApp(app, framework, file, type)));
    results.push(...builds.flat());
  }
  return results;
}
