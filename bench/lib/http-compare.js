// Load runs shared by the HTTP benchmarks: autocannon against a server, the server's CPU per
// answer, and baseline and subject measured alternately.

import { join } from 'node:path';
import autocannon from 'autocannon';
import { benchDir, cpuMs, forkHelper, formatCount, formatMs, settings } from './common.js';

/**
 * Runs autocannon once against `server`; req/s counts only answers with the expected status.
 * Also measures the server process's CPU time (all threads, user + system) per good answer,
 * which moves far less than req/s when the shared machine is busy, and that of its event loop's
 * thread alone: what a server can answer at most is bounded by that thread, the others (SQLite's
 * checkpoints and request log, the collector's helpers) running beside it on other cores.
 */
export async function load(server, path, { method, headers, body, expect }, duration = settings.duration) {
  const cpuBefore = cpuMs(server.pid);
  const loopBefore = cpuMs(server.pid, server.pid);
  const result = await autocannon({
    url: `${server.url}${path}`,
    method,
    headers,
    body,
    connections: settings.connections,
    duration,
    // `[<id>]` in a header or the body becomes a new id in every request (an Idempotency-Key of its own).
    idReplacement: JSON.stringify([headers, body]).includes('[<id>]'),
  });
  const cpuUsed = cpuMs(server.pid) - cpuBefore;
  const loopUsed = cpuMs(server.pid, server.pid) - loopBefore;
  const seconds = (result.finish - result.start) / 1000;
  const good = result.statusCodeStats[String(expect)]?.count ?? 0;
  const unexpected = Object.entries(result.statusCodeStats)
    .filter(([status]) => status !== String(expect))
    .map(([status, { count }]) => `${count}×${status}`);
  if (result.errors > 0) unexpected.push(`${result.errors} errors`);
  if (result.timeouts > 0) unexpected.push(`${result.timeouts} timeouts`);
  return {
    rps: good / seconds,
    cpuUs: good > 0 ? (cpuUsed * 1000) / good : Number.NaN,
    loopCpuUs: good > 0 ? (loopUsed * 1000) / good : Number.NaN,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: good,
    unexpected,
  };
}

/** The run with the median req/s (the lower middle one for an even count). */
export function medianRun(runs) {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  const median = (values) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
  return {
    ...sorted[Math.floor((sorted.length - 1) / 2)],
    medianCpuUs: median(runs.map((run) => run.cpuUs)),
    medianLoopCpuUs: median(runs.map((run) => run.loopCpuUs)),
    all: runs.map((run) => run.rps),
    unexpected: runs.flatMap((run) => run.unexpected),
  };
}

/**
 * Warms every server up, then measures them in turn, baseline first, `rounds` times, so that a
 * disturbance of the machine hits all alike; each one's median run counts.
 */
export async function compare(baselineTarget, subjectTargets) {
  const targets = [baselineTarget, ...subjectTargets];
  if (settings.warmup > 0) {
    for (const t of targets) await load(t, t.path, t.request, settings.warmup);
  }
  const runs = targets.map(() => []);
  for (let round = 0; round < settings.rounds; round++) {
    for (const [i, t] of targets.entries()) runs[i].push(await load(t, t.path, t.request));
  }
  const [baseline, ...subjects] = runs.map(medianRun);
  return { baseline, subjects };
}

/** A median run as the table shows it. */
export function describe(m) {
  return `${formatCount(m.rps)} req/s`;
}

/** The notes of a row: every run, CPU per answer, latencies, and anything unexpected. */
export function note(subject, baseline, extra = []) {
  const each = (runs) => runs.map((rps) => formatCount(rps)).join(', ');
  const parts = [
    `runs ${each(subject.all)} vs ${each(baseline.all)} req/s`,
    `server CPU per answer ${subject.medianCpuUs.toFixed(0)} µs vs ${baseline.medianCpuUs.toFixed(0)} µs (${(baseline.medianCpuUs / subject.medianCpuUs).toFixed(2)}×)`,
    `of it on the event loop ${subject.medianLoopCpuUs.toFixed(0)} µs vs ${baseline.medianLoopCpuUs.toFixed(0)} µs`,
    `p50/p99 ${formatMs(subject.p50)}/${formatMs(subject.p99)} vs ${formatMs(baseline.p50)}/${formatMs(baseline.p99)}`,
    ...extra,
  ];
  if (subject.unexpected.length > 0) parts.push(`UNEXPECTED ${subject.unexpected.join(', ')}`);
  if (baseline.unexpected.length > 0) parts.push(`baseline UNEXPECTED ${baseline.unexpected.join(', ')}`);
  return parts.join('; ');
}

/**
 * Opens the recipient's one browser stream on `server` with the raw-socket stream client (in a
 * process of its own), so that every send of the run records an attempt and writes it to a
 * stream; resolves with the client, whose `collect` counts the events read.
 */
export async function openBrowserStream(name, server, token) {
  const { hostname, port } = new URL(server.url);
  const client = forkHelper(join(benchDir, 'lib/stream-client.js'));
  const opened = await client.request(
    {
      type: 'open',
      host: hostname,
      port: Number(port),
      paths: [`/v1/connect/${token}`],
      concurrency: 1,
      record: false,
    },
    'opened',
  );
  if (opened.ok !== 1) throw new Error(`${name}: the browser's stream did not open: ${opened.errors.join(', ')}`);
  return client;
}
