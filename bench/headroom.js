// headroom: BENCH_HEADROOM_STREAMS (18,000) open event streams on ONE `tidings serve` process,
// with heartbeats running every BENCH_HEADROOM_HEARTBEAT_MS (2 s, so that several run while
// idle CPU is measured). Reports the server's RSS in total and per stream, its idle CPU (CPU time
// over BENCH_HEADROOM_IDLE_SECONDS of no sends, heartbeats only, from /proc), and the p99 from
// send start to event at 100 and at 1,000 sends/s (BENCH_HEADROOM_SECONDS each). What the
// machine could not do shows as an issued rate below the asked one, failed sends and missing
// events; they are printed, not hidden.
//
// Peer: the same for bare node:http (bench/servers/bare-node-sse.js, heartbeats at the same
// interval), in the same run. Both server and client are started with `ulimit -n` raised to the
// hard limit, which must exceed the streams (20,000 here).
//
// Run after `npm run build`: node bench/headroom.js
import { mkdirSync, writeFileSync } from 'node:fs';
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
  highLimits,
  report,
  row,
  rssBytes,
  settings,
  sleep,
  startServer,
  tempDir,
} from './lib/common.js';
import { openStreams, sendAndCollect } from './lib/fanout-run.js';
import { prepareDatabase, sendBody } from './lib/setup.js';

const browsersPerRecipient = Math.max(1, Math.floor(settings.browsersPerRecipient));
const recipients = Math.max(1, Math.round(envNumber('BENCH_HEADROOM_STREAMS', 18_000) / browsersPerRecipient));
const streamCount = recipients * browsersPerRecipient;
const heartbeatMs = envNumber('BENCH_HEADROOM_HEARTBEAT_MS', 2000);
const idleSeconds = envNumber('BENCH_HEADROOM_IDLE_SECONDS', 10);
const sendSeconds = envNumber('BENCH_HEADROOM_SECONDS', 5);
const rates = [100, 1000];

try {
  console.log(
    `headroom: ${formatCount(streamCount)} streams (${formatCount(recipients)} recipients × ${browsersPerRecipient} browsers), ` +
      `heartbeat ${heartbeatMs} ms, idle ${idleSeconds} s, sends at ${rates.join(' and ')}/s for ${sendSeconds} s each`,
  );
  const dir = join(tempDir('headroom'), 'data');
  mkdirSync(dir);
  const setup = await prepareDatabase(dir, { recipients });
  writeFileSync(setup.config, JSON.stringify({ limits: highLimits, heartbeatMs }));
  const headers = { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' };
  const recipientNames = setup.tokens.map((t) => t.recipient);
  const sendTo = (server) => (i) => ({
    url: `${server.url}/v1/notifications`,
    headers,
    body: JSON.stringify(sendBody(recipientNames[i % recipientNames.length])),
  });

  const peers = [
    {
      name: 'tidings serve',
      start: () =>
        startServer(
          'tidings-serve-headroom',
          cliBin,
          ['serve', '--db', setup.db, '--port', '0', '--config', setup.config],
          {
            cpuProf: true,
          },
        ),
      paths: setup.tokens.flatMap(({ token }) => Array(browsersPerRecipient).fill(`/v1/connect/${token}`)),
    },
    {
      name: 'bare node:http',
      start: () =>
        startServer('bare-node-sse-headroom', join(benchDir, 'servers/bare-node-sse.js'), [], {
          env: { BARE_HEARTBEAT_MS: String(heartbeatMs) },
        }),
      paths: recipientNames.flatMap((name) => Array(browsersPerRecipient).fill(`/v1/connect/${name}`)),
    },
  ];

  const results = new Map();
  for (const peer of peers) {
    const server = await peer.start();
    try {
      const open = await openStreams({ label: peer.name, server, paths: peer.paths });
      const cpuBefore = cpuMs(server.pid);
      const idleStarted = performance.now();
      await sleep(idleSeconds * 1000);
      const idleCpu = (cpuMs(server.pid) - cpuBefore) / (performance.now() - idleStarted);
      const rssIdle = rssBytes(server.pid);
      console.log(
        `${peer.name}: idle CPU ${(idleCpu * 100).toFixed(1)}% over ${idleSeconds} s with heartbeats; RSS ${formatBytes(rssIdle)}`,
      );
      const byRate = [];
      for (const rate of rates) {
        byRate.push(
          await sendAndCollect({
            label: `${peer.name} at ${rate}/s`,
            server,
            client: open.client,
            sendFor: sendTo(server),
            rate,
            seconds: sendSeconds,
            browsersPerRecipient,
          }),
        );
      }
      await open.client.close();
      results.set(peer.name, { open, idleCpu, rssIdle, byRate });
    } finally {
      await server.stop();
    }
  }

  const subject = results.get('tidings serve');
  const node = results.get('bare node:http');
  const streamsText = `${formatCount(subject.open.opened.ok)} streams`;
  const openText = (r) =>
    `${formatCount(r.open.opened.ok)} open${r.open.opened.failed ? `, ${r.open.opened.failed} failed to open` : ''}`;
  report(
    row({
      benchmark: `headroom RSS per stream (${streamsText})`,
      figure: subject.open.perStream,
      figureText: formatBytes(subject.open.perStream),
      baseline: node.open.perStream,
      baselineText: formatBytes(node.open.perStream),
      baselineName: 'bare node:http',
      unit: 'bytes',
      target: { on: 'figure', op: '<=', value: 12 * 1024, text: '12 KB' },
      note:
        `RSS total ${formatBytes(subject.open.rssBefore)} → ${formatBytes(subject.open.rssAfter)} (${openText(subject)}),` +
        ` ${formatBytes(subject.rssIdle)} after the idle period;` +
        ` bare ${formatBytes(node.open.rssBefore)} → ${formatBytes(node.open.rssAfter)} (${openText(node)}), ${formatBytes(node.rssIdle)}`,
    }),
  );
  report(
    row({
      benchmark: `headroom idle CPU, heartbeats every ${heartbeatMs / 1000} s (${streamsText})`,
      figure: subject.idleCpu * 100,
      figureText: `${(subject.idleCpu * 100).toFixed(1)}%`,
      baseline: node.idleCpu * 100,
      baselineText: `${(node.idleCpu * 100).toFixed(1)}%`,
      baselineName: 'bare node:http',
      unit: '% of a core',
      target: null,
      note: `server process CPU time (user+system, /proc) over ${idleSeconds} s with no sends`,
    }),
  );
  rates.forEach((rate, i) => {
    const s = subject.byRate[i];
    const b = node.byRate[i];
    const detail = (r) =>
      `issued ${r.issuedRate.toFixed(0)}/s, answered ${r.achievedRate.toFixed(0)}/s, ${formatCount(r.sent)} sent, ${r.failedSends} failed, ` +
      `${formatCount(r.received)}/${formatCount(r.expected)} events, p50/p99/max ${formatMs(r.fromStart.p50)}/${formatMs(r.fromStart.p99)}/${formatMs(r.fromStart.max)}`;
    report(
      row({
        benchmark: `headroom start→event p99 at ${rate} sends/s (${streamsText})`,
        figure: s.fromStart.p99,
        figureText: formatMs(s.fromStart.p99),
        baseline: b.fromStart.p99,
        baselineText: formatMs(b.fromStart.p99),
        baselineName: 'bare node:http',
        unit: 'ms',
        target: { on: 'ratio', op: '<=', value: 2 },
        note: `tidings: ${detail(s)}; bare node:http: ${detail(b)}`,
      }),
    );
  });
} finally {
  await cleanup();
}
