// send and read over HTTP: POST /v1/notifications and GET /v1/notifications/{id} with a live key,
// through `tidings serve` (Hono adapter, SQLite file store in WAL mode), through the Express
// adapter, and through `tidings serve --db postgres://…` (a schema of the run's own on
// BENCH_POSTGRES_URL, dropped after), each against a bare app of the same framework measured in
// the same run. BENCH_SEND_READ=hono,express,postgres picks some of them (default: all).
//
// The recipient has one connected browser whose event stream is held open and read by a
// separate client process, so that every send records an attempt and writes it to a stream.
// Limits are configured high, but the limiter still decides every request.
//
// Run after `npm run build`: node bench/send-read.js (or `npm run bench` for everything).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  benchDir,
  cleanup,
  cliBin,
  cpuMs,
  forkHelper,
  formatCount,
  formatMs,
  report,
  row,
  settings,
  startServer,
  tempDir,
} from './lib/common.js';
import { postgresBenchDb, prepareDatabase, sendBody } from './lib/setup.js';

const streamClient = join(benchDir, 'lib/stream-client.js');

/**
 * Runs autocannon once against `server`; req/s counts only answers with the expected status.
 * Also measures the server process's CPU time (all threads, user + system) per good answer,
 * which moves far less than req/s when the shared machine is busy.
 */
async function load(server, path, { method, headers, body, expect }, duration = settings.duration) {
  const cpuBefore = cpuMs(server.pid);
  const result = await autocannon({
    url: `${server.url}${path}`,
    method,
    headers,
    body,
    connections: settings.connections,
    duration,
  });
  const cpuUsed = cpuMs(server.pid) - cpuBefore;
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
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: good,
    unexpected,
  };
}

/** The run with the median req/s (the lower middle one for an even count). */
function medianRun(runs) {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  const cpu = runs.map((run) => run.cpuUs).sort((a, b) => a - b);
  return {
    ...sorted[Math.floor((sorted.length - 1) / 2)],
    medianCpuUs: cpu[Math.floor((cpu.length - 1) / 2)],
    all: runs.map((run) => run.rps),
    unexpected: runs.flatMap((run) => run.unexpected),
  };
}

/**
 * Warms both servers up, then measures baseline and subject alternately `rounds` times, so that
 * a disturbance of the machine hits both alike; each side's median run counts.
 */
async function compare(baselineServer, subjectServer, path, request) {
  if (settings.warmup > 0) {
    await load(baselineServer, path, request, settings.warmup);
    await load(subjectServer, path, request, settings.warmup);
  }
  const baseline = [];
  const subject = [];
  for (let round = 0; round < settings.rounds; round++) {
    baseline.push(await load(baselineServer, path, request));
    subject.push(await load(subjectServer, path, request));
  }
  return { baseline: medianRun(baseline), subject: medianRun(subject) };
}

function describe(m) {
  return `${formatCount(m.rps)} req/s`;
}

function note(subject, baseline, extra = []) {
  const each = (runs) => runs.map((rps) => formatCount(rps)).join(', ');
  const parts = [
    `runs ${each(subject.all)} vs ${each(baseline.all)} req/s`,
    `server CPU per answer ${subject.medianCpuUs.toFixed(0)} µs vs ${baseline.medianCpuUs.toFixed(0)} µs (${(baseline.medianCpuUs / subject.medianCpuUs).toFixed(2)}×)`,
    `p50/p99 ${formatMs(subject.p50)}/${formatMs(subject.p99)} vs ${formatMs(baseline.p50)}/${formatMs(baseline.p99)}`,
    ...extra,
  ];
  if (subject.unexpected.length > 0) parts.push(`UNEXPECTED ${subject.unexpected.join(', ')}`);
  if (baseline.unexpected.length > 0) parts.push(`baseline UNEXPECTED ${baseline.unexpected.join(', ')}`);
  return parts.join('; ');
}

/** Starts a Tidings server, opens the browser's stream, and measures send and read against a baseline. */
async function measureAdapter({ name, adapterLabel, startTidings, baselineScript, baselineName, targets, postgres }) {
  if (!variants.has(name)) return;
  const dir = join(tempDir(name), 'data');
  mkdirSync(dir);
  const setup = await prepareDatabase(dir, { recipients: 1, postgres: postgres ? postgresBenchDb() : null });
  const tidings = await startTidings(setup);
  const { hostname, port } = new URL(tidings.url);
  const client = forkHelper(streamClient);
  const opened = await client.request(
    {
      type: 'open',
      host: hostname,
      port: Number(port),
      paths: [`/v1/connect/${setup.tokens[0].token}`],
      concurrency: 1,
      record: false,
    },
    'opened',
  );
  if (opened.ok !== 1) throw new Error(`${name}: the browser's stream did not open: ${opened.errors.join(', ')}`);
  const baseline = await startServer(baselineName, join(benchDir, 'servers', baselineScript), []);

  const body = JSON.stringify(sendBody(setup.tokens[0].recipient));
  const sendRequest = {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' },
    body,
    expect: 201,
  };

  // send
  const before = (await client.request({ type: 'collect' }, 'collected')).events;
  const { baseline: baseSend, subject: send } = await compare(baseline, tidings, '/v1/notifications', sendRequest);
  const after = await client.request({ type: 'collect' }, 'collected');
  const sent = send.all.reduce((sum, rps) => sum + rps, 0) * settings.duration;
  report(
    row({
      benchmark: `send (${adapterLabel})`,
      figure: send.rps,
      figureText: describe(send),
      baseline: baseSend.rps,
      baselineText: describe(baseSend),
      baselineName,
      unit: 'req/s',
      target: targets.send,
      note: note(send, baseSend, [
        `${formatCount(after.events - before)} events read by the stream client for ~${formatCount(sent)} measured sends and the warm-up`,
      ]),
    }),
  );
  if (after.ended > 0) console.warn(`${name}: the browser's stream ended during the send run`);

  // read: one notification of this project, read again and again
  const created = await fetch(`${tidings.url}/v1/notifications`, sendRequest);
  if (created.status !== 201) throw new Error(`${name}: send for the read run answered ${created.status}`);
  const { id } = await created.json();
  const readRequest = { method: 'GET', headers: { authorization: `Bearer ${setup.apiKey}` }, expect: 200 };
  const { baseline: baseRead, subject: read } = await compare(
    baseline,
    tidings,
    `/v1/notifications/${id}`,
    readRequest,
  );
  report(
    row({
      benchmark: `read (${adapterLabel})`,
      figure: read.rps,
      figureText: describe(read),
      baseline: baseRead.rps,
      baselineText: describe(baseRead),
      baselineName,
      unit: 'req/s',
      target: targets.read,
      note: note(read, baseRead),
    }),
  );

  await client.close();
  await baseline.stop();
  await tidings.stop();
}

const variants = new Set((process.env.BENCH_SEND_READ || 'hono,express,postgres').split(','));

try {
  console.log(
    `send/read: autocannon, ${settings.connections} connections; ${settings.warmup} s warm-up, then ${settings.rounds} × ${settings.duration} s runs alternating with the baseline`,
  );
  await measureAdapter({
    name: 'hono',
    adapterLabel: 'hono adapter, tidings serve',
    startTidings: (setup) =>
      startServer('tidings-serve', cliBin, ['serve', '--db', setup.db, '--port', '0', '--config', setup.config], {
        cpuProf: true,
      }),
    baselineScript: 'bare-hono.js',
    baselineName: 'bare hono',
    targets: { send: { op: '>=', value: 0.5 }, read: { op: '>=', value: 0.6 } },
  });
  // The same server with the faster, power-loss-unsafe commit mode, for the figure it would give.
  await measureAdapter({
    name: 'hono-normal',
    adapterLabel: 'tidings serve --sqlite-synchronous normal',
    startTidings: (setup) =>
      startServer(
        'tidings-serve-normal',
        cliBin,
        ['serve', '--db', setup.db, '--port', '0', '--config', setup.config, '--sqlite-synchronous', 'normal'],
        {},
      ),
    baselineScript: 'bare-hono.js',
    baselineName: 'bare hono',
    targets: { send: null, read: null },
  });
  await measureAdapter({
    name: 'express',
    adapterLabel: 'express adapter',
    startTidings: (setup) =>
      startServer('tidings-express', join(benchDir, 'servers/tidings-express.js'), [setup.db, setup.config], {
        cpuProf: true,
      }),
    baselineScript: 'bare-express.js',
    baselineName: 'bare express',
    targets: { send: { op: '>=', value: 0.8 }, read: { op: '>=', value: 0.8 } },
  });
  await measureAdapter({
    name: 'postgres',
    adapterLabel: 'tidings serve --db postgres://',
    postgres: true,
    startTidings: (setup) =>
      startServer(
        'tidings-serve-postgres',
        cliBin,
        ['serve', '--db', setup.db, '--port', '0', '--config', setup.config],
        {
          cpuProf: true,
        },
      ),
    baselineScript: 'bare-hono.js',
    baselineName: 'bare hono',
    targets: { send: { op: '>=', value: 0.3 }, read: null },
  });
} finally {
  await cleanup();
}
