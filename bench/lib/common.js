// Shared helpers of the benchmarks: options from the environment, child processes that are
// always killed, temp dirs, RSS, number formatting and result reporting to bench/run.js.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
export const repoDir = dirname(benchDir);
export const cliBin = join(repoDir, 'packages/cli/dist/bin.js');

/** A number from the environment, or the default. */
export function envNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got ${raw}`);
  return value;
}

/** Options shared by every benchmark (see bench/README.md). */
export const settings = {
  /** Seconds per measured autocannon run. */
  duration: envNumber('BENCH_DURATION', 4),
  /** Measured runs of each server, alternating with its baseline; the median run counts. */
  rounds: Math.max(1, Math.round(envNumber('BENCH_ROUNDS', 3))),
  /**
   * Seconds of unmeasured load on each server before its first measured run: long enough for V8
   * to have optimized the hot paths of both sides (after 1 s the first Tidings send round still
   * ran about 20% below the later ones).
   */
  warmup: envNumber('BENCH_WARMUP', 3),
  connections: envNumber('BENCH_CONNECTIONS', 50),
  streams: envNumber('BENCH_STREAMS', 10_000),
  browsersPerRecipient: envNumber('BENCH_BROWSERS_PER_RECIPIENT', 10),
  /** Sends per second during fan-out. */
  fanoutRate: envNumber('BENCH_FANOUT_RATE', 100),
  /** Longer than the heartbeat interval (15 s), so that periodic work on all streams shows. */
  fanoutSeconds: envNumber('BENCH_FANOUT_SECONDS', 20),
  /**
   * Seconds of unmeasured sends at the same rate before each fan-out measurement, on every server
   * alike: the first sends of a fresh Tidings process compile its send path and prepare its
   * statements (10–30 ms each, the few slowest sends of a round), which a running service pays
   * once, not at every p99.
   */
  fanoutWarmup: envNumber('BENCH_FANOUT_WARMUP_SECONDS', 1),
  /** Seconds per in-process measurement (core). */
  coreSeconds: envNumber('BENCH_CORE_SECONDS', 2),
  /** Where temp dirs (and so the database files) go. */
  tmpDir: process.env.BENCH_TMPDIR || tmpdir(),
  /** Write a CPU profile of every Tidings server process into this directory. */
  cpuProfDir: process.env.BENCH_CPU_PROF ?? '',
  /**
   * Sizes in MB (comma-separated) of Node's semi-spaces, the young generation: each adds a
   * `tidings serve` run with `--max-semi-space-size=N` to `fanout.js` and `send-read.js`, next to
   * the one with Node's default, so that memory and CPU can be weighed in the same rounds.
   */
  semiSpaceMb: (process.env.BENCH_SEMI_SPACE_MB ?? '')
    .split(',')
    .filter((size) => size.trim() !== '')
    .map((size) => {
      const mb = Number(size);
      if (!Number.isInteger(mb) || mb < 1) throw new Error(`BENCH_SEMI_SPACE_MB: ${size} is not a size in MB`);
      return mb;
    }),
};

/** Limits high enough never to refuse, with the limiter still deciding every request. */
export const highLimits = {
  perKey: 1_000_000_000,
  perProject: 1_000_000_000,
  perAccount: 1_000_000_000,
  connectPerIp: 1_000_000_000,
  eventsPerIp: 1_000_000_000,
};

const cleanups = [];
let cleaning = null;

/** Runs `fn` at exit, in reverse order of registration, whatever ends the benchmark. */
export function onCleanup(fn) {
  cleanups.push(fn);
}

export async function cleanup() {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const fn = cleanups.pop();
      try {
        await fn();
      } catch (error) {
        console.error('cleanup failed:', error);
      }
    }
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanup().finally(() => process.exit(130));
  });
}

/** A temp dir removed at cleanup. */
export function tempDir(label) {
  const dir = mkdtempSync(join(settings.tmpDir, `tidings-bench-${label}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts a server process (a node script, through bash so that `ulimit -n` can be raised to the
 * hard limit) and resolves with its URL once it prints `listening on URL`. It is killed at cleanup.
 * `nodeFlags` go to node before the script; `memoryReport` lets {@link memoryUsage} ask it what
 * its memory is made of.
 */
export function startServer(
  label,
  script,
  args,
  { env = {}, cpuProf = false, nodeFlags: flags = [], memoryReport = false } = {},
) {
  const nodeFlags = [...flags];
  if (memoryReport) nodeFlags.push('--require', join(benchDir, 'lib/memory-report.cjs'));
  if (cpuProf && settings.cpuProfDir) {
    nodeFlags.push('--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`, `--cpu-prof-name=${label}.cpuprofile`);
  }
  // The bench's own Node.js runs the servers, so the Node beside each figure is theirs.
  const quoted = [process.execPath, ...nodeFlags, script, ...args]
    .map((a) => `'${String(a).replaceAll("'", "'\\''")}'`)
    .join(' ');
  const child = spawn('bash', ['-c', `ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec ${quoted}`], {
    cwd: repoDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = {
    label,
    child,
    pid: child.pid,
    url: null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  onCleanup(() => server.stop());
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`${label} did not start in 30 s: ${stderr}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (https?:\/\/\S+)/.exec(stdout);
      if (match && server.url === null) {
        server.url = match[1];
        clearTimeout(timer);
        resolve(server);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (server.url === null) reject(new Error(`${label} exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });
}

/**
 * The median of some numbers, always one of them: the lower middle one for an even count, so
 * that a figure is a run that happened (lib/fanout-run.js's `median` averages the two instead).
 */
export function lowerMedian(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** Resident set size of a process in bytes (VmRSS in /proc/PID/status). */
export function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

/**
 * What a server started with `memoryReport` holds: `process.memoryUsage()` and the size of V8's
 * young generation (`youngGeneration`), read through the SIGUSR2 handler of lib/memory-report.cjs;
 * null when it does not answer within 5 s (a saturated process may be slow to). Only for such a server: SIGUSR2 ends any other Node
 * process.
 */
export async function memoryUsage(pid) {
  const file = join(tmpdir(), `tidings-bench-memory-${pid}.json`);
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 5000; waited += 20) {
    await sleep(20);
    if (existsSync(file)) {
      const usage = JSON.parse(readFileSync(file, 'utf8'));
      rmSync(file, { force: true });
      return usage;
    }
  }
  return null;
}

/**
 * CPU time a process has used so far, user plus system, in milliseconds (all its threads, from
 * /proc/PID/stat; the kernel counts in ticks of 10 ms, so measure over seconds, not a request).
 * With `thread`, that thread's alone (/proc/PID/task/TID/stat): a process's first thread, whose
 * id is the process's, is Node.js's event loop.
 */
export function cpuMs(pid, thread) {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at `state`; utime and stime are
  // the 14th and 15th fields of the line, the 12th and 13th after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/**
 * CPU milliseconds (user + system) of a server made of processes named `name`, e.g. PostgreSQL's
 * ('postgres'): every such process's own, plus, for the first of them (whose parent has another
 * name), what its children that ended used (cutime + cstime): a backend that exits between two
 * readings is still counted, through its parent.
 */
export function cpuMsOfCommand(name) {
  let total = 0;
  const stats = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      stats.set(entry, stat.slice(stat.lastIndexOf(')') + 2).split(' '));
    } catch {
      // The process ended meanwhile.
    }
  }
  for (const fields of stats.values()) {
    // After the command name: ppid is the 2nd field, utime/stime the 12th/13th, cutime/cstime the 14th/15th.
    total += Number(fields[11]) + Number(fields[12]);
    if (!stats.has(fields[1])) total += Number(fields[13]) + Number(fields[14]);
  }
  return (total * 1000) / ticksPerSecond;
}

/** CPU milliseconds the whole machine spent busy (every core: user, nice, system, irq, softirq, steal), from /proc/stat. */
export function machineBusyMs() {
  const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / ticksPerSecond;
}

/**
 * Stops a server with SIGTERM, waiting up to `waitMs` for it to exit on its own (a process run
 * with --cpu-prof writes its profile only then) before `stop` kills it.
 */
export async function stopSlowly(server, waitMs = 60_000) {
  const { child } = server;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(waitMs)]);
  }
  await server.stop();
}

/**
 * Prints the top self and inclusive time (bench/profile-summary.js) of a --cpu-prof profile
 * between two wall-clock times: its clock starts about when the process was spawned.
 */
export function printProfile({ file, spawnedWall, startedWall, endedWall, top = 25 }) {
  if (!existsSync(file)) {
    console.warn(`no profile written at ${file}`);
    return;
  }
  const from = (startedWall - spawnedWall) / 1000;
  const to = (endedWall - spawnedWall) / 1000;
  console.log(
    execFileSync(
      process.execPath,
      [join(benchDir, 'profile-summary.js'), file, String(top), '--from', from.toFixed(1), '--to', to.toFixed(1)],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    ),
  );
}

/** Clock ticks per second of /proc times (USER_HZ), 100 on Linux. */
const ticksPerSecond = 100;

/** The node process behind a `startServer` (bash execs node, so it is the same pid). */
export function serverPid(server) {
  return server.pid;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wall-clock milliseconds with sub-millisecond precision, comparable between processes. */
export function wallNow() {
  return performance.timeOrigin + performance.now();
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function formatCount(n) {
  return Math.round(n).toLocaleString('en-US');
}

export function formatMs(n) {
  return `${n.toFixed(n < 10 ? 2 : 1)} ms`;
}

export function formatBytes(n) {
  if (Math.abs(n) >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024).toFixed(1)} KB`;
}

/**
 * One line of the final table. `ratio` is figure / baseline for throughputs; `higherIsBetter`
 * says which way the target points. `target` is null when the issue sets none.
 */
export function row({ benchmark, figure, figureText, baseline, baselineText, baselineName, unit, target, note }) {
  const ratio = baseline ? figure / baseline : null;
  let met = null;
  if (target) {
    const value = target.on === 'figure' ? figure : ratio;
    if (target.op === '>=') met = value >= target.value;
    else if (target.op === '<=') met = value <= target.value;
    else met = value < target.value;
  }
  return {
    benchmark,
    figure,
    figureText,
    baseline: baseline ?? null,
    baselineText: baselineText ?? null,
    baselineName: baselineName ?? null,
    unit,
    ratio,
    target: target ?? null,
    targetText: target ? targetText(target) : null,
    met,
    note: note ?? null,
    // Every figure carries the Node.js that made it: the servers run on this process's Node.
    node: process.version,
  };
}

function targetText(target) {
  const op = { '>=': '≥', '<=': '≤', '<': '<' }[target.op];
  if (target.on === 'figure') return `${op} ${target.text ?? target.value}`;
  return `${op} ${target.value}×`;
}

/** `send (hono adapter): 4,210 req/s | baseline bare hono 9,800 req/s | 0.43× | target ≥ 0.5× | MISSED` */
export function rowLine(r) {
  const parts = [`${r.benchmark}: ${r.figureText}`];
  parts.push(r.baselineText ? `baseline ${r.baselineName} ${r.baselineText}` : 'no baseline');
  parts.push(r.ratio === null ? '—' : `${r.ratio.toFixed(2)}×`);
  parts.push(r.targetText ? `target ${r.targetText}` : 'no target');
  parts.push(r.met === null ? '—' : r.met ? 'met' : 'MISSED');
  parts.push(`Node ${r.node}`);
  return parts.join(' | ');
}

/** When this process started: every row it reports carries it, so that one run's rows go together. */
const runStarted = new Date().toISOString();

/**
 * The bench whose rows this process reports: the script's name without `.js` (`send-read`), or
 * `BENCH_RESULTS_NAME` when one bench runs another's code.
 */
export const benchName = process.env.BENCH_RESULTS_NAME || basename(process.argv[1] ?? 'bench', '.js');

/**
 * The line a row is stored as in bench/results/<bench>.jsonl: the row, when its run started and
 * when the row was made, the machine's load average at that moment (1, 5 and 15 minutes) and its
 * cores, and the BENCH_* options the run was given. bench/report.js makes the README's tables from
 * the newest run of each file.
 */
export function resultLine(r) {
  const options = Object.fromEntries(
    Object.entries(process.env)
      .filter(([name]) => name.startsWith('BENCH_') && name !== 'BENCH_RESULTS_NAME' && name !== 'BENCH_RESULTS')
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return {
    bench: benchName,
    run: runStarted,
    date: new Date().toISOString(),
    loadavg: loadavg().map((load) => Math.round(load * 100) / 100),
    cpus: cpus().length,
    options,
    ...r,
  };
}

/**
 * Prints a row, appends it to bench/results/<bench>.jsonl (unless `BENCH_RESULTS=off`), and hands
 * it to bench/run.js when this script runs under it. Every figure a bench reports goes through here.
 */
export function report(r) {
  console.log(`figure ${rowLine(r)}`);
  if (r.note) console.log(`    ${r.note}`);
  if (process.env.BENCH_RESULTS !== 'off') {
    const dir = join(benchDir, 'results');
    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, `${benchName}.jsonl`), `${JSON.stringify(resultLine(r))}\n`);
  }
  process.send?.({ type: 'row', row: r });
}

/**
 * Starts a Node script as a child with an IPC channel, through bash so that `ulimit -n` can be
 * raised to the hard limit; it is killed at cleanup. `request(message, replyType)` sends a
 * message and resolves with the first reply of that type.
 */
export function forkHelper(script, args = []) {
  const child = spawn(
    'bash',
    ['-c', `ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"`, process.execPath, script, ...args],
    {
      cwd: repoDir,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });
  return {
    child,
    pid: child.pid,
    request(message, replyType) {
      return new Promise((resolve, reject) => {
        const onMessage = (reply) => {
          if (reply?.type !== replyType) return;
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve(reply);
        };
        const onExit = (code) => reject(new Error(`${script} exited (${code}) while waiting for ${replyType}`));
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send(message);
      });
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A free TCP port of 127.0.0.1, for a peer process that cannot bind port 0 itself. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** A redis-server of the benchmark's own, without persistence, killed at cleanup; resolves with its URL. */
export async function startRedis(label = 'redis') {
  const dir = tempDir(label);
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir], {
    stdio: 'ignore',
  });
  onCleanup(() => child.kill('SIGKILL'));
  const url = `redis://127.0.0.1:${port}`;
  for (let tries = 0; tries < 200; tries++) {
    if (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG') return url;
    await sleep(25);
  }
  throw new Error('redis-server did not start');
}
