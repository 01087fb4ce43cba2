// fan-out throughput: how many events one `tidings serve` process (SQLite, its default
// `synchronous full`) delivers per second of its own CPU time, against bare node:http
// (bench/servers/bare-node-sse.js) in the same run.
//
// BENCH_HEADROOM_STREAMS (18,000) streams, recipients × BENCH_BROWSERS_PER_RECIPIENT (10)
// browsers, held by one client process (bench/lib/stream-client.js). Sends go to the recipients
// in turn at BENCH_THROUGHPUT_RATE (1,000) per second for BENCH_THROUGHPUT_SECONDS (5), after
// the usual warm-up (BENCH_FANOUT_WARMUP_SECONDS). The server's CPU time (user + system of all
// its threads, libuv's included, from /proc/<pid>/stat) is read just before the first measured
// send and once the last events had a second to arrive; events per CPU-second is the events the
// client received over that time.
//
// The two servers alternate over BENCH_ROUNDS (3) rounds, each turn on a fresh server (and, for
// Tidings, a fresh copy of the prepared database); the median of the rounds counts, every round
// is printed. Both write heartbeats every BENCH_THROUGHPUT_HEARTBEAT_MS (10 minutes: a few a
// second over 18,000 streams, so that CPU-seconds count events, not heartbeats).
//
// BENCH_THROUGHPUT_PROFILE=1 starts the subject with --cpu-prof (in BENCH_CPU_PROF, or a temp
// dir) and prints the functions with the most self time during its measured sends
// (bench/profile-summary.js); BENCH_THROUGHPUT_PROFILE=all profiles bare node:http as well. The profiler costs CPU of its own: figures of such a run are not
// comparable with those of a run without it.
//
// Run after `npm run build`: node bench/fanout-throughput.js
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import {
  benchDir,
  cleanup,
  cliBin,
  cpuMs,
  envNumber,
  formatBytes,
  formatCount,
  formatMs,
  printProfile,
  report,
  row,
  rssBytes,
  settings,
  sleep,
  startServer,
  stopSlowly,
  tempDir,
  wallNow,
} from './lib/common.js';
import { latencies, median, openStreams, sendSteadily } from './lib/fanout-run.js';
import { prepareDatabase, sendBody } from './lib/setup.js';

const browsersPerRecipient = Math.max(1, Math.floor(settings.browsersPerRecipient));
const recipients = Math.max(1, Math.round(envNumber('BENCH_HEADROOM_STREAMS', 18_000) / browsersPerRecipient));
const streamCount = recipients * browsersPerRecipient;
const rate = envNumber('BENCH_THROUGHPUT_RATE', 1000);
const seconds = envNumber('BENCH_THROUGHPUT_SECONDS', 5);
// Heartbeats are not events: one every 10 minutes per stream by default (spread, on both
// servers), so that the figure counts the events' cost and not a number of heartbeats that grows
// with how long a loaded machine makes a turn last.
const heartbeatMs = envNumber('BENCH_THROUGHPUT_HEARTBEAT_MS', 600_000);
const rounds = settings.rounds;
const profile = ['1', 'all'].includes(process.env.BENCH_THROUGHPUT_PROFILE ?? '');
/** BENCH_THROUGHPUT_PROFILE=all profiles bare node:http too, to set the two side by side. */
const profileBare = process.env.BENCH_THROUGHPUT_PROFILE === 'all';
/**
 * Source addresses of the client's connections (BENCH_CLIENT_ADDRESSES, comma-separated; none
 * by default). Each loopback address has ephemeral ports of its own: on a machine where other
 * processes hold most ports of 127.0.0.1, 18,000 streams then still open (`127.0.9.1,127.0.9.2`).
 */
const clientAddresses = (process.env.BENCH_CLIENT_ADDRESSES ?? '')
  .split(',')
  .map((address) => address.trim())
  .filter((address) => address !== '');
/**
 * Another build of the CLI's `bin.js` (BENCH_THROUGHPUT_OTHER_CLI, e.g. an earlier commit's built
 * into a directory of its own), measured as a third server in the same rounds: a change measured
 * against what it changed under the same load.
 */
const otherCli = process.env.BENCH_THROUGHPUT_OTHER_CLI ?? '';
const OTHER = 'tidings serve (other build)';
const SUBJECT = 'tidings serve';
const BARE = 'bare node:http';

/** CPU milliseconds by thread of a process so far: `name (tid)` → ms (from /proc/<pid>/task). */
function threadCpuMs(pid) {
  const threads = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(`${name} (${tid})`, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return threads;
}

/** The threads that used the most CPU between two readings, as text. */
function busiestThreads(before, after, total) {
  return [...after]
    .map(([name, ms]) => [name, ms - (before.get(name) ?? 0)])
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, ms]) => `${name} ${(ms / 1000).toFixed(2)} s (${((100 * ms) / total).toFixed(0)}%)`)
    .join(', ');
}

/** Sends, collects and reads the server's CPU time around the measured sends. */
async function measureThroughput({ label, server, client, sendFor }) {
  if (settings.fanoutWarmup > 0) {
    const warmup = await sendSteadily({
      sendFor,
      rate,
      seconds: settings.fanoutWarmup,
      localAddress: clientAddresses[0],
    });
    if (warmup.failures.length > 0) console.warn(`${label}: failed warm-up sends, e.g. ${warmup.failures[0]}`);
    await sleep(1000);
    await client.request({ type: 'collect' }, 'collected');
  }
  const cpuBefore = cpuMs(server.pid);
  const threadsBefore = threadCpuMs(server.pid);
  const started = performance.now();
  const startedWall = wallNow();
  const run = await sendSteadily({ sendFor, rate, seconds, localAddress: clientAddresses[0] });
  await sleep(1000);
  const cpu = (cpuMs(server.pid) - cpuBefore) / 1000;
  const threads = busiestThreads(threadsBefore, threadCpuMs(server.pid), cpu * 1000);
  const elapsed = (performance.now() - started) / 1000;
  const endedWall = wallNow();
  const rss = rssBytes(server.pid);
  const collected = await client.request({ type: 'collect' }, 'collected');
  const stats = latencies(run.sends, collected.arrivals);
  if (run.failures.length > 0) console.warn(`${label}: failed sends, e.g. ${run.failures.slice(0, 3).join(' / ')}`);
  const attempted = run.sends.length + run.failures.length;
  const result = {
    issued: attempted,
    issuedRate: attempted / run.issued,
    answered: run.sends.length,
    failed: run.failures.length,
    expected: run.sends.length * browsersPerRecipient,
    events: stats.received,
    cpu,
    elapsed,
    perCpuSecond: stats.received / cpu,
    fromStart: stats.fromStart,
    rss,
    startedWall,
    endedWall,
  };
  console.log(
    `${label}: ${formatCount(attempted)} sends issued (${result.issuedRate.toFixed(0)}/s), ${formatCount(result.answered)} answered, ` +
      `${formatCount(result.events)} of ${formatCount(result.expected)} events; CPU ${cpu.toFixed(2)} s over ${elapsed.toFixed(1)} s ` +
      `(${((100 * cpu) / elapsed).toFixed(0)}% of a core) → ${formatCount(result.perCpuSecond)} events per CPU-second; ` +
      `start→event p50/p99/max ${formatMs(stats.fromStart.p50)}/${formatMs(stats.fromStart.p99)}/${formatMs(stats.fromStart.max)}; RSS ${formatBytes(rss)}`,
  );
  console.log(`    CPU by thread: ${threads}`);
  return result;
}

try {
  console.log(
    `fan-out throughput: ${formatCount(streamCount)} streams (${formatCount(recipients)} recipients × ${browsersPerRecipient} browsers), ` +
      `${rate} sends/s for ${seconds} s, ${rounds} rounds, heartbeat ${heartbeatMs} ms; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  const dir = join(tempDir('fanout-throughput'), 'data');
  mkdirSync(dir);
  const profileDir = profile ? settings.cpuProfDir || tempDir('fanout-throughput-prof') : '';
  const setup = await prepareDatabase(dir, { recipients });
  const headers = { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' };
  let copies = 0;
  const freshDb = () => {
    const copy = join(dir, `tidings-${++copies}.db`);
    for (const suffix of ['', '-wal'])
      if (existsSync(setup.db + suffix)) copyFileSync(setup.db + suffix, copy + suffix);
    return copy;
  };
  // The prepared config holds the high limits; the heartbeat is added to a copy of it.
  const config = join(dir, 'throughput.json');
  writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(setup.config, 'utf8')), heartbeatMs }));
  const recipientNames = setup.tokens.map((t) => t.recipient);
  const sendTo = (server) => (i) => ({
    url: `${server.url}/v1/notifications`,
    headers,
    body: JSON.stringify(sendBody(recipientNames[i % recipientNames.length])),
  });

  const profileFlags = (on, name) =>
    on ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const peers = [
    {
      name: SUBJECT,
      profile: 'tidings-serve-throughput',
      start: (round) =>
        startServer(
          `tidings-serve-throughput-${round}`,
          cliBin,
          ['serve', '--db', freshDb(), '--port', '0', '--config', config],
          { nodeFlags: profileFlags(profile, `tidings-serve-throughput-${round}`) },
        ),
      paths: setup.tokens.flatMap(({ token }) => Array(browsersPerRecipient).fill(`/v1/connect/${token}`)),
    },
    ...(otherCli
      ? [
          {
            name: OTHER,
            profile: null,
            start: (round) =>
              startServer(`tidings-serve-other-${round}`, otherCli, [
                'serve',
                '--db',
                freshDb(),
                '--port',
                '0',
                '--config',
                config,
              ]),
            paths: setup.tokens.flatMap(({ token }) => Array(browsersPerRecipient).fill(`/v1/connect/${token}`)),
          },
        ]
      : []),
    {
      name: BARE,
      profile: profileBare ? 'bare-node-sse-throughput' : null,
      start: (round) =>
        startServer(`bare-node-sse-throughput-${round}`, join(benchDir, 'servers/bare-node-sse.js'), [], {
          env: { BARE_HEARTBEAT_MS: String(heartbeatMs) },
          nodeFlags: profileFlags(profileBare, `bare-node-sse-throughput-${round}`),
        }),
      paths: recipientNames.flatMap((name) => Array(browsersPerRecipient).fill(`/v1/connect/${name}`)),
    },
  ];

  const results = new Map(peers.map((peer) => [peer.name, []]));
  for (let round = 1; round <= rounds; round++) {
    // The two Tidings builds take turns going first (the other build first in odd rounds with
    // BENCH_THROUGHPUT_OTHER_FIRST=1): on a machine whose load moves, the order is a bias.
    const otherFirst = otherCli !== '' && (round % 2 === 1) === (process.env.BENCH_THROUGHPUT_OTHER_FIRST === '1');
    const order = otherFirst ? [peers[1], peers[0], ...peers.slice(2)] : peers;
    for (const peer of order) {
      const spawnedWall = wallNow();
      const server = await peer.start(round);
      let result;
      try {
        const label = `${peer.name}, round ${round}`;
        const open = await openStreams({ label, server, paths: peer.paths, localAddresses: clientAddresses });
        result = await measureThroughput({ label, server, client: open.client, sendFor: sendTo(server) });
        result.opened = open.opened.ok;
        // The server closes the connections first, so that their TIME_WAIT is on its side: on
        // the client's, 18,000 of them would hold the ephemeral ports the next turn opens from.
        // Closing them takes a loaded machine seconds, and a profile is written after that.
        await stopSlowly(server);
        await open.client.close();
      } finally {
        await server.stop();
      }
      results.get(peer.name).push(result);
      if (profile && peer.profile) {
        printProfile({
          file: join(profileDir, `${peer.profile}-${round}.cpuprofile`),
          spawnedWall,
          startedWall: result.startedWall,
          endedWall: result.endedWall,
        });
      }
    }
  }

  const subject = results.get(SUBJECT);
  const bare = results.get(BARE);
  const med = (list, pick) => median(list.map(pick));
  const perCpu = { subject: med(subject, (r) => r.perCpuSecond), bare: med(bare, (r) => r.perCpuSecond) };
  const every = (list, pick, format) => list.map((r) => format(pick(r))).join(', ');
  const detail = (list) =>
    `issued ${every(list, (r) => r.issued, formatCount)}, answered ${every(list, (r) => r.answered, formatCount)}, ` +
    `events ${every(list, (r) => r.events, formatCount)} of ${every(list, (r) => r.expected, formatCount)}, ` +
    `CPU ${every(
      list,
      (r) => r.cpu,
      (v) => `${v.toFixed(2)} s`,
    )}, events/CPU-s ${every(list, (r) => r.perCpuSecond, formatCount)}, ` +
    `start→event p50 ${every(list, (r) => r.fromStart.p50, formatMs)}, p99 ${every(list, (r) => r.fromStart.p99, formatMs)}, ` +
    `RSS ${every(list, (r) => r.rss, formatBytes)}`;
  const streamsText = `${formatCount(streamCount)} streams, ${rate} sends/s`;
  report(
    row({
      benchmark: `fan-out events per CPU-second (${streamsText})`,
      figure: perCpu.subject,
      figureText: formatCount(perCpu.subject),
      baseline: perCpu.bare,
      baselineText: formatCount(perCpu.bare),
      baselineName: BARE,
      unit: 'events per CPU-second',
      target: { on: 'ratio', op: '>=', value: 0.7 },
      note: `median of ${rounds} rounds; tidings: ${detail(subject)}; bare node:http: ${detail(bare)}`,
    }),
  );
  if (otherCli) {
    const other = results.get(OTHER);
    const perCpuOther = med(other, (r) => r.perCpuSecond);
    report(
      row({
        benchmark: `fan-out events per CPU-second, other build (${streamsText})`,
        figure: perCpuOther,
        figureText: formatCount(perCpuOther),
        baseline: perCpu.bare,
        baselineText: formatCount(perCpu.bare),
        baselineName: BARE,
        unit: 'events per CPU-second',
        target: null,
        note: `${otherCli}; this build against it: ${(perCpu.subject / perCpuOther).toFixed(2)}×; median of ${rounds} rounds: ${detail(other)}`,
      }),
    );
  }
  const p99 = { subject: med(subject, (r) => r.fromStart.p99), bare: med(bare, (r) => r.fromStart.p99) };
  report(
    row({
      benchmark: `fan-out start→event p99 (${streamsText})`,
      figure: p99.subject,
      figureText: formatMs(p99.subject),
      baseline: p99.bare,
      baselineText: formatMs(p99.bare),
      baselineName: BARE,
      unit: 'ms',
      target: { on: 'figure', op: '<', value: 200, text: '200 ms' },
      note: `answered ${formatCount(med(subject, (r) => r.answered))} of ${formatCount(med(subject, (r) => r.issued))} sends, ${formatCount(med(subject, (r) => r.events))} events (medians)`,
    }),
  );
} finally {
  await cleanup();
}
