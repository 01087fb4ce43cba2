// fan-out across instances: the streams of fanout.js spread over BENCH_INSTANCES `tidings serve
// --redis` processes on one PostgreSQL database and one Redis (a private redis-server this script starts),
// the sends spread over the same instances, as behind a load balancer. A send recorded on one
// instance reaches the streams of the others through Redis pub/sub. Prints p50/p99/max from the
// send's 201 to the event at the client.
//
// Baseline: the same streams and sends on one `tidings serve` without Redis, in the same run.
//
// Run after `npm run build`: node bench/fanout-instances.js

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  benchDir,
  cleanup,
  cliBin,
  envNumber,
  forkHelper,
  formatCount,
  formatMs,
  report,
  row,
  settings,
  sleep,
  startRedis,
  startServer,
  tempDir,
} from './lib/common.js';
import { latencies, sendSteadily } from './lib/fanout-run.js';
import { postgresBenchDb, prepareDatabase, sendBody } from './lib/setup.js';

const streamClient = join(benchDir, 'lib/stream-client.js');
const instances = Math.max(2, Math.round(envNumber('BENCH_INSTANCES', 3)));
const browsersPerRecipient = Math.max(1, Math.floor(settings.browsersPerRecipient));
const recipients = Math.max(1, Math.round(settings.streams / browsersPerRecipient));

/** Opens each recipient's browsers round-robin over the servers, sends, and measures 201 → event. */
async function measure(label, servers, setup) {
  const headers = { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' };
  const pathsOf = servers.map(() => []);
  let next = 0;
  for (const { token } of setup.tokens) {
    for (let j = 0; j < browsersPerRecipient; j++) pathsOf[next++ % servers.length].push(`/v1/connect/${token}`);
  }
  const clients = servers.map(() => forkHelper(streamClient));
  await sleep(500);
  const opened = await Promise.all(
    servers.map((server, i) => {
      const { hostname, port } = new URL(server.url);
      return clients[i].request(
        { type: 'open', host: hostname, port: Number(port), paths: pathsOf[i], concurrency: 64, record: true },
        'opened',
      );
    }),
  );
  const ok = opened.reduce((sum, o) => sum + o.ok, 0);
  await sleep(1500);
  // Each send to the next recipient, through the next server in turn, as behind a load balancer.
  const recipientNames = setup.tokens.map((t) => t.recipient);
  const run = await sendSteadily({
    sendFor: (i) => ({
      url: `${servers[i % servers.length].url}/v1/notifications`,
      headers,
      body: JSON.stringify(sendBody(recipientNames[i % recipientNames.length])),
    }),
    rate: settings.fanoutRate,
    seconds: settings.fanoutSeconds,
  });
  if (run.failures.length > 0) console.warn(`${label}: failed sends, e.g. ${run.failures.slice(0, 3).join(' / ')}`);
  await sleep(1000);
  const collected = await Promise.all(clients.map((client) => client.request({ type: 'collect' }, 'collected')));
  for (const client of clients) await client.close();
  const stats = latencies(
    run.sends,
    collected.flatMap(({ arrivals }) => arrivals),
  );
  const result = {
    p50: stats.fromAnswer.p50,
    p99: stats.fromAnswer.p99,
    max: stats.fromAnswer.max,
    startP50: stats.fromStart.p50,
    startP99: stats.fromStart.p99,
    received: stats.received,
    expected: run.sends.length * browsersPerRecipient,
    failedSends: run.failures.length,
    opened: ok,
  };
  console.log(
    `${label}: ${formatCount(ok)} streams on ${servers.length} server(s); ${formatCount(result.received)} of ` +
      `${formatCount(result.expected)} events; 201→event p50/p99/max ${formatMs(result.p50)}/${formatMs(result.p99)}/${formatMs(result.max)}`,
  );
  return result;
}

try {
  console.log(
    `fan-out across ${instances} instances: ${formatCount(recipients * browsersPerRecipient)} streams ` +
      `(${formatCount(recipients)} recipients × ${browsersPerRecipient} browsers), ${settings.fanoutRate} sends/s for ${settings.fanoutSeconds} s`,
  );
  const base = tempDir('fanout-instances');
  const single = join(base, 'single');
  const shared = join(base, 'shared');
  mkdirSync(single);
  mkdirSync(shared);

  // PostgreSQL, as instances share it in a deployment: a schema per side of the run's own (dropped
  // at cleanup), so that neither sends to the other's browsers.
  const singleSetup = await prepareDatabase(single, { recipients, postgres: postgresBenchDb() });
  const one = await startServer('tidings-serve-single', cliBin, [
    'serve',
    '--db',
    singleSetup.db,
    '--port',
    '0',
    '--config',
    singleSetup.config,
  ]);
  const baseline = await measure('one instance', [one], singleSetup);
  await one.stop();

  const redisUrl = await startRedis('fanout-redis');
  const sharedSetup = await prepareDatabase(shared, { recipients, postgres: postgresBenchDb() });
  const many = [];
  for (let i = 0; i < instances; i++) {
    many.push(
      await startServer(`tidings-serve-redis-${i}`, cliBin, [
        'serve',
        '--db',
        sharedSetup.db,
        '--port',
        '0',
        '--config',
        sharedSetup.config,
        '--redis',
        redisUrl,
      ]),
    );
  }
  const subject = await measure(`${instances} instances`, many, sharedSetup);
  for (const server of many) await server.stop();

  const completeness = (m) =>
    `${formatCount(m.received)}/${formatCount(m.expected)} events` +
    (m.failedSends ? `, ${m.failedSends} sends failed` : '');
  report(
    row({
      benchmark: `fan-out over ${instances} instances + Redis, 201→event p99 (${formatCount(subject.opened)} streams)`,
      figure: subject.p99,
      figureText: formatMs(subject.p99),
      baseline: baseline.p99,
      baselineText: formatMs(baseline.p99),
      baselineName: 'one instance, no Redis',
      unit: 'ms',
      target: { on: 'figure', op: '<', value: 50, text: '50 ms' },
      note:
        `p50/p99/max ${formatMs(subject.p50)}/${formatMs(subject.p99)}/${formatMs(subject.max)}` +
        ` (one instance ${formatMs(baseline.p50)}/${formatMs(baseline.p99)}/${formatMs(baseline.max)});` +
        ` start→event p50/p99 ${formatMs(subject.startP50)}/${formatMs(subject.startP99)}` +
        ` (one instance ${formatMs(baseline.startP50)}/${formatMs(baseline.startP99)}); ` +
        `${completeness(subject)} (one instance ${completeness(baseline)})`,
    }),
  );
} finally {
  await cleanup();
}
