// What the Redis hub's routing costs each instance: messages read from Redis per instance per
// send, with 1, 2 and 4 instances, for every routing (by browser, by 16 and 256 shards) against
// the broadcast channel, all in one run on one private redis-server. BENCH_HUB_BROWSERS (100,2000),
// BENCH_HUB_INSTANCES (1,2,4), BENCH_HUB_SENDS (2,000) and BENCH_HUB_ROUTINGS (all) change the grid.
// Run after `npm run build`: node bench/hub-routing.js (bench/run.js runs it as `hub-routing`).
// Prints figures only; it gates nothing (bench/README.md: benchmarks are not tests).
// A message that does not arrive is set against what the hubs reported: the browsers whose
// subscription Redis confirmed after their follow had resolved (`onMissed` with a list: a real
// deployment catches their streams up from the store at once), reports of every stream (a
// reconnect), and warnings about dropped publishes (named to the instances that hold their browsers once Redis takes publishes again).
import { spawnSync } from 'node:child_process';
import { silentLogger } from '@tidings/core';
import { createRedisHub } from '@tidings/redis';
import { cleanup, envNumber, formatMs, report, row, startRedis } from './lib/common.js';

// Few browsers (fewer than shards on each instance) and many.
const BROWSER_COUNTS = (process.env.BENCH_HUB_BROWSERS ?? '100,2000').split(',').map(Number);
const SENDS = envNumber('BENCH_HUB_SENDS', 2_000);
const INSTANCES = (process.env.BENCH_HUB_INSTANCES ?? '1,2,4').split(',').map(Number);
const ALL_ROUTINGS = [
  { name: 'broadcast', routing: 'broadcast' },
  { name: 'by browser', routing: 'browser' },
  { name: '16 shards', routing: { shards: 16 } },
  { name: '256 shards', routing: { shards: 256 } },
];
// `BENCH_HUB_ROUTINGS=broadcast,by browser` measures only those (broadcast always: it is the baseline).
const ROUTINGS = process.env.BENCH_HUB_ROUTINGS
  ? ALL_ROUTINGS.filter(({ name }) => name === 'broadcast' || process.env.BENCH_HUB_ROUTINGS.split(',').includes(name))
  : ALL_ROUTINGS;

function delivery(browserId, seq) {
  return {
    attemptId: `att_${String(seq).padStart(26, '0')}`,
    browserId,
    seq,
    notificationId: `ntf_${String(seq).padStart(26, '0')}`,
    title: 'Your order shipped',
    body: 'It arrives on Thursday.',
    url: '/orders/42',
    icon: null,
    tag: null,
    data: null,
    createdAt: 0,
    expiresAt: 0,
  };
}

/** A deterministic sequence, so that every routing sees the same sends. */
function* randomInts(seed, below) {
  let state = seed;
  for (;;) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    yield state % below;
  }
}

/** Redis's `used_memory` (INFO memory), in bytes. */
function usedMemory(url) {
  const { port } = new URL(url);
  const info = spawnSync('redis-cli', ['-p', port, 'INFO', 'memory'], { encoding: 'utf8' }).stdout;
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

async function measure(url, channel, routing, instances, BROWSERS) {
  // What the hubs say about messages they may not have carried.
  let dropWarnings = 0;
  const logger = {
    ...silentLogger,
    warn(message) {
      if (message.includes('publishes are dropped')) dropWarnings++;
    },
  };
  const hubs = Array.from({ length: instances }, () => createRedisHub({ url, channel, routing, logger }));
  await Promise.all(hubs.map((hub) => hub.ready()));
  // Browser i's streams are on instance i mod N; each instance follows its own browsers.
  const browserIds = Array.from({ length: BROWSERS }, (_, i) => `brw_bench_${i}`);
  const delivered = hubs.map(() => 0);
  const deliveredSeqs = new Set();
  const reportedLate = new Set();
  let reportedLateCount = 0;
  let reportedAll = 0;
  for (const [i, hub] of hubs.entries()) {
    hub.subscribe(
      (message) => {
        if (message.type !== 'deliver') return;
        delivered[i]++;
        deliveredSeqs.add(message.delivery.seq);
      },
      (missedBrowserIds) => {
        if (missedBrowserIds === undefined) {
          reportedAll++;
          return;
        }
        reportedLateCount += missedBrowserIds.length;
        for (const id of missedBrowserIds) reportedLate.add(id);
      },
    );
  }
  const memoryBefore = usedMemory(url);
  const followStarted = performance.now();
  await Promise.all(browserIds.map((id, i) => hubs[i % instances].follow(id)));
  const followMs = performance.now() - followStarted;
  const redisBytes = usedMemory(url) - memoryBefore;
  const before = hubs.map((hub) => hub.stats().received);
  // Each send goes to one random browser and is recorded by a random instance (behind a load
  // balancer, not the one holding the stream), one send per turn.
  const browsers = randomInts(7, BROWSERS);
  const publishers = randomInts(11, instances);
  const started = performance.now();
  const sentTo = [];
  for (let seq = 1; seq <= SENDS; seq++) {
    const browser = browsers.next().value;
    sentTo[seq] = browserIds[browser];
    await hubs[publishers.next().value].publish([{ type: 'deliver', delivery: delivery(browserIds[browser], seq) }]);
  }
  // A message that never arrives is reported, not waited for: after 30 s the rest count as lost.
  const deadline = Date.now() + 30_000;
  while (delivered.reduce((sum, n) => sum + n, 0) < SENDS && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const lost = SENDS - delivered.reduce((sum, n) => sum + n, 0);
  const elapsedMs = performance.now() - started;
  // The lost messages whose browser a hub reported late: a deployment catches those up at once.
  let lostReportedLate = 0;
  for (let seq = 1; seq <= SENDS; seq++) {
    if (!deliveredSeqs.has(seq) && reportedLate.has(sentTo[seq])) lostReportedLate++;
  }
  const received = hubs.map((hub, i) => hub.stats().received - before[i]);
  const channels = hubs.map((hub) => hub.stats().channels);
  for (const hub of hubs) await hub.close();
  return {
    perInstancePerSend: received.reduce((sum, n) => sum + n, 0) / instances / SENDS,
    channelsPerInstance: channels.reduce((sum, n) => sum + n, 0) / instances,
    followMs,
    elapsedMs,
    redisBytesPerBrowser: redisBytes / BROWSERS,
    lost,
    lostReportedLate,
    reportedLate: reportedLateCount,
    reportedAll,
    dropWarnings,
  };
}

try {
  const url = await startRedis('hub-routing');
  const results = [];
  let run = 0;
  for (const browsers of BROWSER_COUNTS) {
    for (const instances of INSTANCES) {
      for (const { name, routing } of ROUTINGS) {
        const result = await measure(url, `bench:hub:${run++}`, routing, instances, browsers);
        results.push({ name, instances, browsers, ...result });
      }
    }
  }
  console.log(
    `${SENDS} sends to random browsers from random instances, one per turn; browsers spread over the instances`,
  );
  console.log(
    'browsers | instances | routing    | received per instance per send | received by all per send | channels per instance | Redis memory per browser | follow all | sends | lost | lost, reported late | reported late | reported all | drop warnings',
  );
  for (const r of results) {
    console.log(
      `${String(r.browsers).padEnd(8)} | ${String(r.instances).padEnd(9)} | ${r.name.padEnd(10)} | ${r.perInstancePerSend.toFixed(3).padEnd(30)} | ${(r.perInstancePerSend * r.instances).toFixed(3).padEnd(24)} | ${r.channelsPerInstance.toFixed(0).padEnd(21)} | ${`${r.redisBytesPerBrowser.toFixed(0)} B`.padEnd(24)} | ${formatMs(r.followMs).padEnd(10)} | ${formatMs(r.elapsedMs).padEnd(9)} | ${String(r.lost).padEnd(4)} | ${String(r.lostReportedLate).padEnd(19)} | ${String(r.reportedLate).padEnd(13)} | ${String(r.reportedAll).padEnd(12)} | ${r.dropWarnings}`,
    );
  }
  console.log(
    'lost, reported late: lost messages whose browser a hub reported after its subscription was confirmed late (a deployment catches those streams up from the store at once); reported late: browsers so reported; reported all: reports of every stream (a reconnect); drop warnings: outages of the publishing side (what they dropped is named to the instances holding its browsers once Redis is back)',
  );
  for (const r of results.filter((entry) => entry.name !== 'broadcast')) {
    const broadcast = results.find(
      (entry) => entry.name === 'broadcast' && entry.instances === r.instances && entry.browsers === r.browsers,
    );
    report(
      row({
        benchmark: `hub-routing ${r.name}, ${r.browsers} browsers, ${r.instances} instance${r.instances > 1 ? 's' : ''}`,
        figure: r.perInstancePerSend,
        figureText: `${r.perInstancePerSend.toFixed(3)} messages per instance per send`,
        baseline: broadcast.perInstancePerSend,
        baselineText: broadcast.perInstancePerSend.toFixed(3),
        baselineName: 'broadcast',
        unit: 'messages',
        note: `${r.lost} of ${SENDS} not delivered within 30 s (${r.lostReportedLate} of them to browsers reported late; ${r.reportedLate} browsers reported late, ${r.reportedAll} reports of every stream, ${r.dropWarnings} warnings of dropped publishes); ${r.channelsPerInstance.toFixed(0)} channels per instance; following ${r.browsers} browsers took ${formatMs(r.followMs)}; ${SENDS} sends ${formatMs(r.elapsedMs)} (broadcast ${formatMs(broadcast.elapsedMs)})`,
      }),
    );
  }
} finally {
  await cleanup();
}
