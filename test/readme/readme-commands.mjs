#!/usr/bin/env node
/**
 * The README's commands, run verbatim on a clean clone.
 *
 *   node test/readme/readme-commands.mjs [--keep DIR]      (npm run test:readme)
 *
 * It clones the repository's HEAD into a new directory (DIR with --keep, which is then left in
 * place; otherwise a temporary one, removed afterwards), and runs every shell block of the
 * clone's README.md (```sh, ```bash, ```shell), top to bottom, one command at a time, in the
 * clone, with bash. A command that exits non-zero fails the run, and so does a README that
 * changed the clone's tracked files. Nothing is installed beforehand: the README's own
 * `npm ci` is what installs, so a bin that npm could not link, or a build that `prepare` does
 * not make, fails here as it would for a new user. No dependency: it runs before any install.
 *
 * A command is a line of a block (lines ending in `\` are joined); blank lines and whole-line
 * `#` comments are not commands, and a trailing ` # comment` is not part of a command's text.
 *
 * The README tells this runner what a reader does besides typing the commands with one HTML
 * comment right before a block (invisible on GitHub), one directive a line:
 *
 *   <!-- readme-test
 *   background: npm ci && npm start  until /curl -X POST/
 *   skip: npm test  — CI runs the suite in this clone right after (.ci/run)
 *   fill: ACCOUNT_ID  /\bacct_[0-9a-z]{26}\b/
 *   before: curl -s http://127.0.0.1:8787/demo/token
 *   expect: /"object":"notification"/
 *   -->
 *
 * - `skip: COMMAND — REASON`: that command of the block is not run. The reason is required.
 *   For what cannot run here (the test suite itself) or is proven elsewhere; never for a
 *   command that fails.
 * - `skip-block: REASON`: no command of the block runs.
 * - `background: COMMAND until /REGEX/`: a long-running command (a server) starts in the
 *   background; the run goes on once its output matches REGEX, and it is stopped (SIGTERM to
 *   its process group) when every block has run. If it exits before that, the run fails.
 * - `fill: PLACEHOLDER /REGEX/`: from this block on, every occurrence of PLACEHOLDER (any text
 *   without spaces: ACCOUNT_ID, `$KEY`, `ntf_…`) in a command is replaced, when the command
 *   runs, by the latest match of REGEX in the output (stdout and stderr) of everything run so
 *   far, background commands included. A placeholder with no match yet fails the run.
 * - `before: COMMAND`: a command the reader does not type but does otherwise (opening a page,
 *   connecting a browser), run before the block's commands, with the fills applied. It must
 *   succeed too.
 * - `expect: /REGEX/`: the output of the block's commands must match REGEX (a curl exits 0 on
 *   any status: say what a good answer contains).
 *
 * COMMAND is the command's text as the README shows it, without its trailing comment; a
 * directive that names no command of its block fails the run, so a directive cannot outlive
 * its command. One rule needs no directive: the README's port 8787 is replaced by a free port
 * (`:8787` in commands, and TIDINGS_PORT in the environment, which `tidings serve` reads), so
 * that runs can share a machine. The commands run with the caller's environment, minus
 * anything that would make them pass where a new user's would fail: no node_modules/.bin of
 * another checkout on PATH, no TIDINGS_DB, no npm_* variables, and npx never installs.
 * docs/contributing.md says the same for the README's authors.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const shellLanguages = new Set(['sh', 'bash', 'shell']);
const directiveNames = new Set(['skip', 'skip-block', 'background', 'fill', 'before', 'expect']);
/**
 * How long one command may take, and a background one to print what it is waited for (the
 * README's `npm ci && npm start` installs and builds everything first).
 */
const commandTimeoutMs = 20 * 60_000;

/** A mistake in the README's blocks or directives. */
export class ReadmeError extends Error {}

/** The text a directive names a command by: the command without a trailing comment, spaces collapsed. */
export function commandText(command) {
  let quote = null;
  for (let i = 0; i < command.length; i++) {
    const char = command[i];
    if (quote) {
      if (char === quote) quote = null;
      else if (char === '\\' && quote === '"') i++;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '\\') i++;
    else if (char === '#' && (i === 0 || /\s/.test(command[i - 1]))) {
      return command.slice(0, i).trim().replace(/\s+/g, ' ');
    }
  }
  return command.trim().replace(/\s+/g, ' ');
}

function parseRegex(text, where) {
  const match = /^\/(.+)\/([a-z]*)$/.exec(text.trim());
  if (!match) throw new ReadmeError(`${where}: expected /REGEX/, got ${JSON.stringify(text)}`);
  return new RegExp(match[1], match[2].replace('g', ''));
}

function parseDirective(line, where) {
  const match = /^([a-z-]+):\s*(.*)$/.exec(line);
  if (!match || !directiveNames.has(match[1])) {
    throw new ReadmeError(`${where}: unknown directive ${JSON.stringify(line)}`);
  }
  const [, name, value] = match;
  switch (name) {
    case 'skip': {
      const parts = value.split(' — ');
      if (parts.length !== 2 || !parts[1].trim()) throw new ReadmeError(`${where}: skip needs "COMMAND — REASON"`);
      return { kind: 'skip', command: commandText(parts[0]), reason: parts[1].trim() };
    }
    case 'skip-block':
      if (!value.trim()) throw new ReadmeError(`${where}: skip-block needs a reason`);
      return { kind: 'skip-block', reason: value.trim() };
    case 'background': {
      const until = /^(.*?)\s+until\s+(\/.+\/[a-z]*)$/.exec(value);
      if (!until) throw new ReadmeError(`${where}: background needs "COMMAND until /REGEX/"`);
      return { kind: 'background', command: commandText(until[1]), until: parseRegex(until[2], where) };
    }
    case 'fill': {
      const fill = /^(\S+)\s+(\/.+\/[a-z]*)$/.exec(value);
      if (!fill) throw new ReadmeError(`${where}: fill needs "PLACEHOLDER /REGEX/"`);
      return { kind: 'fill', placeholder: fill[1], pattern: parseRegex(fill[2], where) };
    }
    case 'before':
      if (!value.trim()) throw new ReadmeError(`${where}: before needs a command`);
      return { kind: 'before', command: value.trim() };
    default:
      return { kind: 'expect', pattern: parseRegex(value, where) };
  }
}

/**
 * The README's shell blocks, in order, each with its commands and directives:
 * `{ line, commands: [{ line, command, text, mode: 'run' | 'background' | 'skip', until?, reason? }],
 * fills, before, expect }`.
 */
export function parseReadme(markdown, file = 'README.md') {
  const lines = markdown.split('\n');
  const blocks = [];
  let directives = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^<!--\s*readme-test\b/.test(line)) {
      const start = i + 1;
      const body = [line.replace(/^<!--\s*readme-test\b/, '')];
      while (!body[body.length - 1].includes('-->')) {
        i++;
        if (i >= lines.length) throw new ReadmeError(`${file}:${start}: readme-test comment never closed`);
        body.push(lines[i]);
      }
      body[body.length - 1] = body[body.length - 1].replace(/-->.*$/, '');
      directives = body
        .map((text) => text.trim())
        .filter(Boolean)
        .map((text) => parseDirective(text, `${file}:${start}`));
      directives.line = start;
      // The block it speaks of must come next, so that it cannot drift away from it.
      while (i + 1 < lines.length && lines[i + 1].trim() === '') i++;
      if (!/^```(sh|bash|shell)\s*$/.test(lines[i + 1] ?? '')) {
        throw new ReadmeError(`${file}:${start}: a readme-test comment must come right before a shell block`);
      }
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!fence) continue;
    const start = i + 1;
    const content = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) content.push({ text: lines[i], line: i + 1 });
    if (!shellLanguages.has(fence[1])) continue;
    blocks.push(buildBlock(start, content, directives ?? [], file));
    directives = null;
  }
  return blocks;
}

function buildBlock(line, content, directives, file) {
  const commands = [];
  for (let j = 0; j < content.length; j++) {
    const first = content[j];
    let command = first.text;
    while (/\\\s*$/.test(command) && j + 1 < content.length) {
      j++;
      command = `${command.replace(/\\\s*$/, '')} ${content[j].text.trim()}`;
    }
    if (command.trim() === '' || command.trim().startsWith('#')) continue;
    commands.push({ line: first.line, command: command.trim(), text: commandText(command), mode: 'run' });
  }
  const skipBlock = directives.find((d) => d.kind === 'skip-block');
  for (const directive of directives) {
    if (directive.kind !== 'skip' && directive.kind !== 'background') continue;
    const target = commands.find((c) => c.text === directive.command);
    if (!target) {
      throw new ReadmeError(
        `${file}:${directives.line}: ${directive.kind} names ${JSON.stringify(directive.command)}, which is no command of the block at line ${line}`,
      );
    }
    target.mode = directive.kind;
    if (directive.kind === 'skip') target.reason = directive.reason;
    else target.until = directive.until;
  }
  if (skipBlock) {
    for (const command of commands) {
      command.mode = 'skip';
      command.reason = skipBlock.reason;
    }
  }
  return {
    line,
    commands,
    fills: directives.filter((d) => d.kind === 'fill'),
    before: directives.filter((d) => d.kind === 'before').map((d) => d.command),
    expect: directives.filter((d) => d.kind === 'expect').map((d) => d.pattern),
  };
}

/** `command` with the README's port replaced and every placeholder filled from `transcript`. */
export function prepareCommand(command, { fills, transcript, port }) {
  let result = command.replaceAll(':8787', `:${port}`);
  for (const { placeholder, pattern } of fills) {
    if (!result.includes(placeholder)) continue;
    const matches = [...transcript.matchAll(new RegExp(pattern.source, `${pattern.flags}g`))];
    const latest = matches.at(-1);
    if (!latest) throw new ReadmeError(`no output so far matches ${pattern} to fill ${placeholder} in: ${command}`);
    result = result.replaceAll(placeholder, latest[0]);
  }
  return result;
}

/** The environment of the README's commands: the caller's, without what a new user would not have. */
export function cleanEnvironment(env, port) {
  const clean = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('npm_') || name === 'INIT_CWD' || name === 'TIDINGS_DB' || name === 'NODE_OPTIONS') continue;
    clean[name] = value;
  }
  clean.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => !/node_modules[\\/]\.bin/.test(entry))
    .join(delimiter);
  clean.TIDINGS_PORT = String(port);
  // npx would otherwise fetch a package of that name from the registry when no bin is linked.
  clean.npm_config_yes = 'false';
  return clean;
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

function git(args, cwd) {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** Runs the README's blocks in `dir`; resolves when all ran, throws on the first failure. */
async function runBlocks(blocks, { dir, env, port, log }) {
  let transcript = '';
  const background = [];
  const fills = [];
  const run = (command) =>
    new Promise((resolveRun, reject) => {
      const child = spawn('bash', ['-o', 'pipefail', '-c', command], {
        cwd: dir,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const append = (data) => {
        output += data;
        transcript += data;
      };
      child.stdout.on('data', append);
      child.stderr.on('data', append);
      const timer = setTimeout(() => child.kill('SIGKILL'), commandTimeoutMs);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolveRun(output);
        else reject(new Error(`exited ${code ?? signal}: ${command}\n${output}`));
      });
    });
  const start = (command, until) =>
    new Promise((resolveStart, reject) => {
      const child = spawn('bash', ['-c', command], {
        cwd: dir,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const entry = { child, command, output: '', exited: false, ready: false };
      background.push(entry);
      const timer = setTimeout(
        () =>
          reject(new Error(`no output matched ${until} within ${commandTimeoutMs} ms: ${command}\n${entry.output}`)),
        commandTimeoutMs,
      );
      const append = (data) => {
        entry.output += data;
        transcript += data;
        if (!entry.ready && until.test(entry.output)) {
          entry.ready = true;
          clearTimeout(timer);
          resolveStart();
        }
      };
      child.stdout.on('data', append);
      child.stderr.on('data', append);
      child.on('exit', (code, signal) => {
        entry.exited = true;
        clearTimeout(timer);
        reject(
          new Error(`background command exited ${code ?? signal} while it should run: ${command}\n${entry.output}`),
        );
      });
    });
  try {
    for (const block of blocks) {
      fills.push(...block.fills);
      for (const command of block.before) {
        const prepared = prepareCommand(command, { fills, transcript, port });
        log(`README.md:${block.line} before: ${prepared}`);
        await run(prepared);
      }
      let output = '';
      for (const command of block.commands) {
        if (command.mode === 'skip') {
          log(`README.md:${command.line} skipped: ${command.text} (${command.reason})`);
          continue;
        }
        const prepared = prepareCommand(command.command, { fills, transcript, port });
        log(`README.md:${command.line} ${command.mode === 'background' ? 'background' : 'run'}: ${prepared}`);
        if (command.mode === 'background') await start(prepared, command.until);
        else output += await run(prepared);
      }
      for (const pattern of block.expect) {
        if (!pattern.test(output))
          throw new Error(`README.md:${block.line}: output does not match ${pattern}:\n${output}`);
      }
      for (const entry of background) {
        if (entry.exited) throw new Error(`background command stopped early: ${entry.command}\n${entry.output}`);
      }
    }
  } finally {
    await Promise.all(background.map(stop));
  }
}

/** Stops a background command and everything it started (its process group). */
function stop({ child, exited }) {
  if (exited || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const force = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolveStop();
    });
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      resolveStop();
    }
  });
}

async function main(argv) {
  const keepIndex = argv.indexOf('--keep');
  const keep = keepIndex === -1 ? undefined : argv[keepIndex + 1];
  if (keepIndex !== -1 && !keep) throw new ReadmeError('--keep needs a directory');
  const root = git(['rev-parse', '--show-toplevel'], dirname(fileURLToPath(import.meta.url)));
  const head = git(['rev-parse', 'HEAD'], root);
  if (git(['status', '--porcelain', '--untracked-files=no'], root) !== '') {
    console.error('readme-commands: uncommitted changes are not part of the run: it tests HEAD');
  }
  const dir = keep ? resolve(keep) : await mkdtemp(join(tmpdir(), 'tidings-readme-'));
  const log = (text) => console.log(`[readme] ${text}`);
  try {
    git(['clone', '--quiet', '--no-checkout', root, dir]);
    git(['checkout', '--quiet', '--detach', head], dir);
    log(`clean clone of ${head.slice(0, 12)} in ${dir}`);
    const blocks = parseReadme(await readFile(join(dir, 'README.md'), 'utf8'));
    const port = await freePort();
    const started = Date.now();
    await runBlocks(blocks, { dir, env: cleanEnvironment(process.env, port), port, log });
    const changed = git(['status', '--porcelain'], dir);
    if (changed !== '') throw new Error(`the README's commands changed tracked files of the clone:\n${changed}`);
    log(`every command passed in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    if (!keep) await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(`[readme] FAILED: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  });
}
