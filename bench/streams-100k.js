// streams-100k: BENCH_100K_STREAMS (100,000) event streams, one browser per recipient, spread over
// BENCH_100K_INSTANCES (6) `tidings serve` processes on one PostgreSQL schema and one private
// redis-server (the routed hub), each instance under the 20,000 open files a process may hold.
// Each instance's streams are held by a client process of its own. A connection is told apart by
// its four addresses and ports, so the ephemeral ports of 127.0.0.1 (about 28,000) suffice for
// each instance's port; with BENCH_100K_SOURCE_ADDRESSES=1 each client connects from an address of
// its own (127.0.0.2, 127.0.0.3, …) instead, for runs with more streams per instance. Binding to a
// source address makes the kernel search a free port per socket: on a loaded 2-core machine
// 100,000 streams to bare node:http took 650 s to open that way, most of it system time in the
// clients, and 260 s without.
// Then BENCH_100K_RATE (1,000) sends a second, each to a random recipient, through the instances
// in turn as behind a load balancer, for BENCH_100K_SECONDS (60). Prints: streams opened, events
// delivered of those expected, p50/p99/max from the send's start and from its 201 to the event,
// each instance's RSS per stream and CPU, and the sends the machine could not issue or answer.
//
// Peer, in the same run: the same streams and sends on as many bare `node:http` processes
// (bench/servers/bare-node-sse.js; no store, no hub: each send goes to the process holding its
// recipient's stream). Then the hub's work per instance at 1, 2, 4 and 6 instances holding the
// same number of browsers, routed by browser against broadcast (bench/hub-routing.js).
//
// Run after `npm run build`: node bench/streams-100k.js (bench/run.js runs it as `streams-100k`).
import { fork, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import {
  benchDir,
  cleanup,
  cliBin,
  cpuMs,
  cpuMsOfCommand,
  envNumber,
  forkHelper,
  formatBytes,
  formatCount,
  formatMs,
  machineBusyMs,
  memoryUsage,
  printProfile,
  report,
  row,
  rssBytes,
  settings,
  sleep,
  startRedis,
  startServer,
  stopSlowly,
  tempDir,
  wallNow,
} from './lib/common.js';
import { latencies, sendSteadily } from './lib/fanout-run.js';
import { benchPostgresUrl, postgresBenchDb, prepareDatabase, sendBody } from './lib/setup.js';

const streamClient = join(benchDir, 'lib/stream-client.js');
const instances = Math.max(1, Math.round(envNumber('BENCH_100K_INSTANCES', 6)));
const streamCount = Math.max(instances, Math.round(envNumber('BENCH_100K_STREAMS', 100_000)));
const rate = envNumber('BENCH_100K_RATE', 1000);
const seconds = envNumber('BENCH_100K_SECONDS', 60);
const withPeer = envNumber('BENCH_100K_PEER', 1) > 0;
const hubInstances = process.env.BENCH_100K_HUB_INSTANCES ?? '1,2,4,6';
const sourceAddresses = envNumber('BENCH_100K_SOURCE_ADDRESSES', 0) > 0;
/**
 * BENCH_100K_NODE_FLAGS: Node.js flags for every server of both sides, e.g.
 * `--max-semi-space-size=8` (docs/deploy.md, _Sizing_).
 */
const nodeFlags = (process.env.BENCH_100K_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/**
 * BENCH_100K_PROFILE=1 runs the first instance with --cpu-prof and prints its top self time during
 * the sends. The profile is written to BENCH_CPU_PROF when set (and kept), else to a temp dir.
 */
const profile = process.env.BENCH_100K_PROFILE === '1';
/**
 * BENCH_100K_STATEMENTS=1 prints PostgreSQL's statements by total time during the sends. It needs
 * a server that loads pg_stat_statements (BENCH_POSTGRES_URL; bench/NOTES.md shows a private one).
 */
const statements = process.env.BENCH_100K_STATEMENTS === '1';

/** The mean over instances of V8's heap per stream beside its young generation, and of the rest. */
function heapShare(subject, peer) {
  const mean = (result, key) =>
    result.split.every((part) => part !== null)
      ? formatBytes(result.split.reduce((sum, part) => sum + part[key], 0) / result.split.length)
      : '?';
  const side = (result) =>
    `${mean(result, 'heap')} in V8's heap beside its young generation, ${mean(result, 'rest')} the rest`;
  return `per stream ${side(subject)}${peer ? ` (bare ${side(peer)})` : ''}; `;
}

/** A random recipient for each send: the same sequence on both sides. */
function* randomInts(seed, below) {
  let state = seed;
  for (;;) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    yield state % below;
  }
}

/**
 * Opens every stream (recipient i on server i mod N, from client i mod N), sends, and collects.
 * `sendFor(i, recipient)` says where the i-th send goes.
 */
async function measure(label, servers, recipients, pathOf, sendFor, counters = async () => ({})) {
  const pathsOf = servers.map(() => []);
  const holder = new Array(recipients.length);
  for (const [i, recipient] of recipients.entries()) {
    holder[i] = i % servers.length;
    pathsOf[holder[i]].push(pathOf(i, recipient));
  }
  const clients = servers.map(() => forkHelper(streamClient));
  await sleep(500);
  const rssBefore = servers.map((server) => rssBytes(server.pid));
  const memoryBefore = await Promise.all(servers.map((server) => memoryUsage(server.pid)));
  const openStarted = performance.now();
  // Each instance's streams open in two halves, with its RSS read between them: the second
  // half's growth is what a stream costs once the process's heap has taken its working size.
  const openHalf = (half) =>
    Promise.all(
      servers.map((server, i) => {
        const { hostname, port } = new URL(server.url);
        const middle = Math.ceil(pathsOf[i].length / 2);
        return clients[i].request(
          {
            type: 'open',
            host: hostname,
            port: Number(port),
            paths: half === 0 ? pathsOf[i].slice(0, middle) : pathsOf[i].slice(middle),
            concurrency: 64,
            record: true,
            ...(sourceAddresses ? { localAddresses: [`127.0.0.${2 + i}`] } : {}),
          },
          'opened',
        );
      }),
    );
  // What opening costs: the servers' CPU and the whole machine's busy time (with the stream
  // clients and, for Tidings, PostgreSQL and Redis), the pause between the halves left out.
  const openCpuBefore = servers.reduce((sum, server) => sum + cpuMs(server.pid), 0);
  const openMachineBefore = machineBusyMs();
  const firstHalf = await openHalf(0);
  const pausedAt = performance.now();
  const pauseCpuBefore = servers.reduce((sum, server) => sum + cpuMs(server.pid), 0);
  const pauseMachineBefore = machineBusyMs();
  await sleep(3000);
  const rssMiddle = servers.map((server) => rssBytes(server.pid));
  const resumedAt = performance.now();
  const pauseCpu = servers.reduce((sum, server) => sum + cpuMs(server.pid), 0) - pauseCpuBefore;
  const pauseMachine = machineBusyMs() - pauseMachineBefore;
  const secondHalf = await openHalf(1);
  const openCpu = servers.reduce((sum, server) => sum + cpuMs(server.pid), 0) - openCpuBefore - pauseCpu;
  const openMachine = machineBusyMs() - openMachineBefore - pauseMachine;
  // Opening time, the pause between the halves left out.
  const openSeconds = (performance.now() - openStarted - (resumedAt - pausedAt)) / 1000;
  const opened = firstHalf.map((first, i) => ({
    ok: first.ok + secondHalf[i].ok,
    failed: first.failed + secondHalf[i].failed,
    errors: [...first.errors, ...secondHalf[i].errors],
  }));
  const ok = opened.reduce((sum, o) => sum + o.ok, 0);
  const failed = opened.reduce((sum, o) => sum + o.failed, 0);
  if (failed > 0)
    console.warn(`${label}: ${failed} streams failed to open, e.g. ${opened.flatMap((o) => o.errors)[0]}`);
  await sleep(3000);
  const rssAfter = servers.map((server) => rssBytes(server.pid));
  const perStream = rssAfter.map((after, i) => (after - rssBefore[i]) / Math.max(1, opened[i].ok));
  const perStreamLater = rssAfter.map((after, i) => (after - rssMiddle[i]) / Math.max(1, secondHalf[i].ok));
  // The RSS per stream split: V8's heap beside its young generation (the objects streams keep,
  // and garbage not yet collected), and the rest: what Node holds outside V8's heap (sockets,
  // HTTP parsers, buffers) and the young generation's pages first touched while streams opened.
  const memoryAfter = await Promise.all(servers.map((server) => memoryUsage(server.pid)));
  const split = memoryAfter.map((after, i) => {
    const before = memoryBefore[i];
    if (after === null || before === null) return null;
    const oldHeap = (m) => m.heapTotal - m.youngGeneration;
    const heap = (oldHeap(after) - oldHeap(before)) / Math.max(1, opened[i].ok);
    return { heap, rest: perStream[i] - heap, young: after.youngGeneration };
  });
  const splitText = split.every((part) => part !== null)
    ? `; of which V8's heap beside its young generation ${split.map((part) => formatBytes(part.heap)).join(', ')}, ` +
      `the rest ${split.map((part) => formatBytes(part.rest)).join(', ')} (young generation ${split.map((part) => formatBytes(part.young)).join(', ')})`
    : '';
  console.log(
    `${label}: ${formatCount(ok)} streams open on ${servers.length} processes in ${openSeconds.toFixed(1)} s; ` +
      `RSS per stream ${perStream.map(formatBytes).join(', ')}${splitText}; of the second half ${perStreamLater.map(formatBytes).join(', ')}; ` +
      `CPU per stream opened: servers ${(openCpu / Math.max(1, ok)).toFixed(2)} ms, whole machine ${(openMachine / Math.max(1, ok)).toFixed(2)} ms`,
  );

  const picks = randomInts(17, recipients.length);
  const targets = [];
  const countersBefore = await counters();
  const cpuBefore = servers.map((server) => cpuMs(server.pid));
  const startedWall = wallNow();
  // What the load itself costs the machine: the stream clients and this process, the sender.
  const loadCpuBefore = clients.reduce((sum, client) => sum + cpuMs(client.pid), 0) + cpuMs(process.pid);
  const run = await sendSteadily({
    sendFor: (i) => {
      const recipient = picks.next().value;
      targets[i] = recipient;
      return sendFor(i, recipient, holder[recipient]);
    },
    rate,
    seconds,
  });
  const endedWall = wallNow();
  await sleep(3000);
  const cpu = servers.map((server, i) => (cpuMs(server.pid) - cpuBefore[i]) / 1000);
  const loadCpu =
    (clients.reduce((sum, client) => sum + cpuMs(client.pid), 0) + cpuMs(process.pid) - loadCpuBefore) / 1000;
  const countersAfter = await counters();
  const counted = Object.fromEntries(
    Object.entries(countersAfter).map(([name, value]) => [name, value - (countersBefore[name] ?? 0)]),
  );
  const collected = await Promise.all(clients.map((client) => client.request({ type: 'collect' }, 'collected')));
  for (const client of clients) await client.close();
  const stats = latencies(
    run.sends,
    collected.flatMap(({ arrivals }) => arrivals),
  );
  const attempted = run.sends.length + run.failures.length;
  if (run.failures.length > 0) console.warn(`${label}: failed sends, e.g. ${run.failures.slice(0, 3).join(' / ')}`);
  const result = {
    opened: ok,
    failedStreams: failed,
    openSeconds,
    openCpuMsPerStream: openCpu / Math.max(1, ok),
    openMachineMsPerStream: openMachine / Math.max(1, ok),
    perStream: Math.max(...perStream),
    perStreamMean: perStream.reduce((sum, n) => sum + n, 0) / perStream.length,
    perStreamLater: Math.max(...perStreamLater),
    split,
    rssTotal: rssAfter.reduce((sum, n) => sum + n, 0),
    sent: run.sends.length,
    failedSends: run.failures.length,
    issuedRate: attempted / run.issued,
    received: stats.received,
    expected: run.sends.length,
    fromStart: stats.fromStart,
    fromAnswer: stats.fromAnswer,
    cpuSeconds: cpu.reduce((sum, n) => sum + n, 0),
    cpuPerInstance: cpu,
    loadCpuSeconds: loadCpu,
    startedWall,
    endedWall,
    counted,
  };
  console.log(
    `${label}: ${formatCount(result.sent)} sends (${result.failedSends} failed, ${result.issuedRate.toFixed(0)}/s issued), ` +
      `${formatCount(result.received)} of ${formatCount(result.expected)} events; start→event p50/p99/max ` +
      `${formatMs(stats.fromStart.p50)}/${formatMs(stats.fromStart.p99)}/${formatMs(stats.fromStart.max)}, ` +
      `201→event ${formatMs(stats.fromAnswer.p50)}/${formatMs(stats.fromAnswer.p99)}, ` +
      `start→201 ${formatMs(stats.sendLatency.p50)}/${formatMs(stats.sendLatency.p99)}; server CPU ` +
      `${result.cpuSeconds.toFixed(1)} s (${cpu.map((s) => s.toFixed(1)).join(', ')}) over ${seconds} s; ` +
      `clients and sender CPU ${loadCpu.toFixed(1)} s; RSS of all ${formatBytes(result.rssTotal)}` +
      Object.entries(counted)
        .map(([name, value]) => `; ${name} per send ${(value / Math.max(1, result.sent)).toFixed(2)}`)
        .join(''),
  );
  return result;
}

async function tidingsSide(recipientCount) {
  const dir = join(tempDir('streams-100k'), 'data');
  mkdirSync(dir);
  const prepareStarted = performance.now();
  const setup = await prepareDatabase(dir, {
    recipients: recipientCount,
    postgres: postgresBenchDb(),
    concurrency: 16,
  });
  console.log(
    `tidings: ${formatCount(recipientCount)} connect tokens made in ${((performance.now() - prepareStarted) / 1000).toFixed(1)} s`,
  );
  const redisUrl = await startRedis('streams-100k-redis');
  const redisPid = Number(
    /process_id:(\d+)/.exec(
      spawnSync('redis-cli', ['-p', new URL(redisUrl).port, 'INFO', 'server'], { encoding: 'utf8' }).stdout,
    )?.[1],
  );
  const servers = [];
  const profileDir = profile ? settings.cpuProfDir || tempDir('streams-100k-prof') : '';
  let profiledSpawnedWall = 0;
  for (let i = 0; i < instances; i++) {
    const profiled = profile && i === 0;
    if (profiled) profiledSpawnedWall = wallNow();
    servers.push(
      await startServer(
        `tidings-100k-${i}`,
        cliBin,
        ['serve', '--db', setup.db, '--port', '0', '--config', setup.config, '--redis', redisUrl],
        {
          memoryReport: true,
          nodeFlags: [
            ...nodeFlags,
            ...(profiled
              ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-name=instance-0.cpuprofile']
              : []),
          ],
        },
      ),
    );
  }
  const headers = { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' };
  // The store's work per send: rows written to the run's schema, and its transactions.
  const schema = new URL(setup.db).searchParams.get('schema');
  const stats = new pg.Client({ connectionString: benchPostgresUrl });
  await stats.connect();
  if (statements) await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  let countersRead = 0;
  const counters = async () => {
    await sleep(1500); // backends publish their table counts about once a second
    if (statements && countersRead++ === 0) await stats.query('SELECT pg_stat_statements_reset()');
    else if (statements) await printStatements(stats);
    const { rows } = await stats.query(
      `SELECT coalesce(sum(n_tup_ins), 0)::float8 AS inserted, coalesce(sum(n_tup_upd), 0)::float8 AS updated
         FROM pg_stat_user_tables WHERE schemaname = $1`,
      [schema],
    );
    // Connections the server accepted (each a backend process started), whatever the database.
    const sessions = await stats.query('SELECT coalesce(sum(sessions), 0)::float8 AS sessions FROM pg_stat_database');
    return {
      'PostgreSQL rows inserted': rows[0].inserted,
      'PostgreSQL rows updated': rows[0].updated,
      'PostgreSQL sessions opened': sessions.rows[0].sessions,
      // Every process of the PostgreSQL server (the bench's schema is its only load here).
      'PostgreSQL CPU ms': cpuMsOfCommand('postgres'),
      'Redis CPU ms': cpuMs(redisPid),
      // What every process of the machine spent, the bound of the figures above.
      'machine CPU ms': machineBusyMs(),
    };
  };
  const result = await measure(
    `${instances} × tidings serve + Redis`,
    servers,
    setup.tokens,
    (_, { token }) => `/v1/connect/${token}`,
    (i, recipient) => ({
      url: `${servers[i % servers.length].url}/v1/notifications`,
      headers,
      body: JSON.stringify(sendBody(setup.tokens[recipient].recipient)),
    }),
    counters,
  );
  await stats.end();
  // A profile is written when the process exits on its own.
  if (profile) await stopSlowly(servers[0], 120_000);
  for (const server of servers) await server.stop();
  if (profile) {
    printProfile({
      file: join(profileDir, 'instance-0.cpuprofile'),
      spawnedWall: profiledSpawnedWall,
      startedWall: result.startedWall,
      endedWall: result.endedWall,
      top: 30,
    });
  }
  return result;
}

/** PostgreSQL's statements since the reset, by total execution time. */
async function printStatements(client) {
  const { rows } = await client.query(
    `SELECT calls::float8, total_exec_time::float8 AS ms, total_plan_time::float8 AS plan_ms, rows::float8,
            shared_blks_hit::float8 AS hit, shared_blks_read::float8 AS read, wal_bytes::float8,
            regexp_replace(query, '\\s+', ' ', 'g') AS query
       FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 15`,
  );
  const total = rows.reduce((sum, r) => sum + r.ms + r.plan_ms, 0);
  console.log(`PostgreSQL statements during the sends, by time (top 15: ${total.toFixed(0)} ms):`);
  for (const r of rows) {
    console.log(
      `  ${(r.ms + r.plan_ms).toFixed(0).padStart(7)} ms (plan ${r.plan_ms.toFixed(0)}) ${formatCount(r.calls).padStart(8)} calls ` +
        `${formatCount(r.rows).padStart(9)} rows ${formatCount(r.hit + r.read).padStart(10)} blocks ` +
        `${formatBytes(r.wal_bytes).padStart(9)} WAL  ${r.query.slice(0, 150)}`,
    );
  }
}

async function peerSide(recipientCount) {
  const servers = [];
  for (let i = 0; i < instances; i++) {
    servers.push(
      await startServer(`bare-node-100k-${i}`, join(benchDir, 'servers/bare-node-sse.js'), [], {
        // Heartbeats every 15 s like Tidings' default: the least an event stream must write.
        env: { BARE_ID_PREFIX: String(i).padStart(2, '0'), BARE_HEARTBEAT_MS: '15000' },
        nodeFlags,
        memoryReport: true,
      }),
    );
  }
  const recipients = Array.from({ length: recipientCount }, (_, i) => `user-${i}`);
  const result = await measure(
    `${instances} × bare node:http`,
    servers,
    recipients,
    (_, recipient) => `/v1/connect/${recipient}`,
    (_, recipient, holder) => ({
      url: `${servers[holder].url}/v1/notifications`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sendBody(recipients[recipient])),
    }),
  );
  for (const server of servers) await server.stop();
  return result;
}

try {
  console.log(
    `streams-100k: ${formatCount(streamCount)} streams over ${instances} instances (${formatCount(Math.ceil(streamCount / instances))} each), ` +
      `${rate} sends/s to random recipients for ${seconds} s` +
      (nodeFlags.length > 0 ? `; servers run with ${nodeFlags.join(' ')}` : ''),
  );
  const peer = withPeer ? await peerSide(streamCount) : null;
  const subject = await tidingsSide(streamCount);
  const complete = `${formatCount(subject.received)}/${formatCount(subject.expected)} events, ${subject.failedSends} sends failed, ${subject.failedStreams} streams failed`;
  report(
    row({
      benchmark: `${formatCount(subject.opened)} streams on ${instances} instances, start→event p99`,
      figure: subject.fromStart.p99,
      figureText: formatMs(subject.fromStart.p99),
      baseline: peer?.fromStart.p99,
      baselineText: peer ? formatMs(peer.fromStart.p99) : undefined,
      baselineName: `${instances} × bare node:http`,
      unit: 'ms',
      target: { on: 'figure', op: '<', value: 100, text: '100 ms' },
      note:
        `${complete}; p50/max ${formatMs(subject.fromStart.p50)}/${formatMs(subject.fromStart.max)}; ` +
        `${subject.issuedRate.toFixed(0)} sends/s issued; server CPU ${subject.cpuSeconds.toFixed(1)} s` +
        (peer
          ? ` (bare ${peer.cpuSeconds.toFixed(1)} s, ${formatCount(peer.received)}/${formatCount(peer.expected)} events)`
          : ''),
    }),
  );
  report(
    row({
      benchmark: `${formatCount(subject.opened)} streams on ${instances} instances, RSS per stream (largest instance)`,
      figure: subject.perStream,
      figureText: formatBytes(subject.perStream),
      baseline: peer?.perStream,
      baselineText: peer ? formatBytes(peer.perStream) : undefined,
      baselineName: `${instances} × bare node:http`,
      unit: 'bytes',
      target: { on: 'figure', op: '<=', value: 12 * 1024, text: '12 KB' },
      note: `mean over instances ${formatBytes(subject.perStreamMean)}; the second half of the streams ${formatBytes(subject.perStreamLater)}${peer ? ` (bare ${formatBytes(peer.perStreamLater)})` : ''}; ${heapShare(subject, peer)}all instances ${formatBytes(subject.rssTotal)}; streams opened in ${subject.openSeconds.toFixed(1)} s, ${subject.openCpuMsPerStream.toFixed(2)} ms of the instances' CPU per stream (whole machine ${subject.openMachineMsPerStream.toFixed(2)} ms)${peer ? ` (bare ${peer.openCpuMsPerStream.toFixed(2)} ms, ${peer.openMachineMsPerStream.toFixed(2)} ms)` : ''}`,
    }),
  );
  // The hub's work per instance at 1, 2, 4 and 6 instances holding as many browsers, routed
  // against broadcast, on a private redis-server: exact counts of the messages each hub reads.
  await new Promise((resolve, reject) => {
    const hub = fork(join(benchDir, 'hub-routing.js'), {
      env: {
        ...process.env,
        BENCH_HUB_BROWSERS: String(streamCount),
        BENCH_HUB_INSTANCES: hubInstances,
        BENCH_HUB_ROUTINGS: 'by browser',
        // Its rows are this run's: they go to results/streams-100k.jsonl, not hub-routing's.
        BENCH_RESULTS_NAME: 'streams-100k',
      },
    });
    hub.on('message', (message) => process.send?.(message)); // its rows, to bench/run.js
    hub.once('error', reject);
    hub.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`hub-routing.js exited with ${code}`))));
  });
} finally {
  await cleanup();
}
