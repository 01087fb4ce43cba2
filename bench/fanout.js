// fan-out: BENCH_STREAMS open event streams (recipients × BENCH_BROWSERS_PER_RECIPIENT browsers)
// on one `tidings serve` process, held by a separate client process over raw sockets. Sends go to
// the recipients in turn at a steady BENCH_FANOUT_RATE per second; the client records when each
// notification event arrives. Prints p50/p99/max from the send's 201 to the event at the client
// (and from the start of the send), the server's RSS and its RSS per stream.
//
// Baseline: the same streams and sends against a bare Hono SSE server (bench/servers/bare-sse.js).
//
// Run after `npm run build`: node bench/fanout.js

import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import {
  benchDir,
  cleanup,
  cliBin,
  forkHelper,
  formatBytes,
  formatCount,
  formatMs,
  percentile,
  report,
  row,
  rssBytes,
  settings,
  sleep,
  startServer,
  tempDir,
  wallNow,
} from './lib/common.js';
import { prepareDatabase, sendBody } from './lib/setup.js';

const streamClient = join(benchDir, 'lib/stream-client.js');
const browsersPerRecipient = Math.max(1, Math.floor(settings.browsersPerRecipient));
const recipients = Math.max(1, Math.round(settings.streams / browsersPerRecipient));
const streamCount = recipients * browsersPerRecipient;

/** POSTs JSON and resolves with the status and the parsed body. */
function post(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode, body: text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Sends to recipient 0, 1, 2… at a steady rate for `seconds`, without waiting for answers. */
async function sendSteadily({ url, headers, recipientNames, rate, seconds }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const sends = [];
  const failures = [];
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const body = JSON.stringify(sendBody(recipientNames[i % recipientNames.length]));
    const start = wallNow();
    pending.push(
      post(agent, url, { ...headers, 'content-length': Buffer.byteLength(body) }, body).then(
        ({ status, body: text }) => {
          const answered = wallNow();
          if (status !== 201) {
            failures.push(`${status} ${text.slice(0, 200)}`);
            return;
          }
          sends.push({ id: JSON.parse(text).id, start, answered });
        },
        (error) => failures.push(error.code ?? String(error)),
      ),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  return { sends, failures, seconds: (performance.now() - started) / 1000 };
}

function latencies(sends, arrivals) {
  const byId = new Map(sends.map((send) => [send.id, send]));
  const fromAnswer = [];
  const fromStart = [];
  let unmatched = 0;
  for (const [id, at] of arrivals) {
    const send = byId.get(id);
    if (!send) {
      unmatched++;
      continue;
    }
    fromAnswer.push(at - send.answered);
    fromStart.push(at - send.start);
  }
  fromAnswer.sort((a, b) => a - b);
  fromStart.sort((a, b) => a - b);
  const summary = (sorted) => ({
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
  });
  const answerTimes = sends.map((send) => send.answered - send.start).sort((a, b) => a - b);
  return {
    fromAnswer: summary(fromAnswer),
    fromStart: summary(fromStart),
    sendLatency: summary(answerTimes),
    received: fromAnswer.length,
    unmatched,
  };
}

/** Opens the streams on a server, sends steadily, and measures latency and memory. */
async function measure({ label, server, paths, recipientNames, headers }) {
  const { hostname, port } = new URL(server.url);
  const client = forkHelper(streamClient);
  await sleep(500);
  const rssBefore = rssBytes(server.pid);
  const opened = await client.request(
    { type: 'open', host: hostname, port: Number(port), paths, concurrency: 64, record: true },
    'opened',
  );
  if (opened.failed > 0) console.warn(`${label}: ${opened.failed} streams failed to open: ${opened.errors.join(', ')}`);
  await sleep(1500);
  const rssAfter = rssBytes(server.pid);
  console.log(
    `${label}: ${formatCount(opened.ok)} streams open in ${(opened.ms / 1000).toFixed(1)} s; server RSS ${formatBytes(rssBefore)} → ${formatBytes(rssAfter)}`,
  );

  const run = await sendSteadily({
    url: `${server.url}/v1/notifications`,
    headers,
    recipientNames,
    rate: settings.fanoutRate,
    seconds: settings.fanoutSeconds,
  });
  if (run.failures.length > 0) console.warn(`${label}: failed sends, e.g. ${run.failures.slice(0, 3).join(' / ')}`);
  await sleep(1000);
  const rssEnd = rssBytes(server.pid);
  const collected = await client.request({ type: 'collect' }, 'collected');
  await client.close();
  const stats = latencies(run.sends, collected.arrivals);
  const expected = run.sends.length * browsersPerRecipient;
  console.log(
    `${label}: ${formatCount(run.sends.length)} sends in ${run.seconds.toFixed(1)} s (${run.failures.length} failed), ` +
      `${formatCount(stats.received)} of ${formatCount(expected)} events received; ` +
      `201→event p50/p99/max ${formatMs(stats.fromAnswer.p50)}/${formatMs(stats.fromAnswer.p99)}/${formatMs(stats.fromAnswer.max)}, ` +
      `start→event ${formatMs(stats.fromStart.p50)}/${formatMs(stats.fromStart.p99)}/${formatMs(stats.fromStart.max)}, ` +
      `start→201 ${formatMs(stats.sendLatency.p50)}/${formatMs(stats.sendLatency.p99)}; RSS after sends ${formatBytes(rssEnd)}`,
  );
  return {
    ...stats,
    opened: opened.ok,
    failedStreams: opened.failed,
    sent: run.sends.length,
    failedSends: run.failures.length,
    expected,
    ended: collected.ended,
    rssBefore,
    rssAfter,
    rssEnd,
    perStream: (rssAfter - rssBefore) / Math.max(1, opened.ok),
  };
}

try {
  console.log(
    `fan-out: ${formatCount(streamCount)} streams (${formatCount(recipients)} recipients × ${browsersPerRecipient} browsers), ` +
      `${settings.fanoutRate} sends/s for ${settings.fanoutSeconds} s`,
  );
  const dir = join(tempDir('fanout'), 'data');
  mkdirSync(dir);
  const setup = await prepareDatabase(dir, { recipients });
  const headers = { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' };
  const recipientNames = setup.tokens.map((t) => t.recipient);

  const tidings = await startServer(
    'tidings-serve-fanout',
    cliBin,
    ['serve', '--db', setup.db, '--port', '0', '--config', setup.config],
    { cpuProf: true },
  );
  const subject = await measure({
    label: 'tidings serve',
    server: tidings,
    paths: setup.tokens.flatMap(({ token }) => Array(browsersPerRecipient).fill(`/v1/connect/${token}`)),
    recipientNames,
    headers,
  });
  await tidings.stop();

  const bare = await startServer('bare-sse', join(benchDir, 'servers/bare-sse.js'), []);
  const baseline = await measure({
    label: 'bare hono sse',
    server: bare,
    paths: recipientNames.flatMap((name) => Array(browsersPerRecipient).fill(`/v1/connect/${name}`)),
    recipientNames,
    headers,
  });
  await bare.stop();

  const streamsText = `${formatCount(subject.opened)} streams`;
  const completeness = (m) =>
    `${formatCount(m.received)}/${formatCount(m.expected)} events` +
    (m.failedSends ? `, ${m.failedSends} sends failed` : '') +
    (m.failedStreams ? `, ${m.failedStreams} streams failed` : '') +
    (m.ended ? `, ${m.ended} streams ended early` : '');
  report(
    row({
      benchmark: `fan-out 201→event p99 (${streamsText})`,
      figure: subject.fromAnswer.p99,
      figureText: formatMs(subject.fromAnswer.p99),
      baseline: baseline.fromAnswer.p99,
      baselineText: formatMs(baseline.fromAnswer.p99),
      baselineName: 'bare hono sse',
      unit: 'ms',
      target: { on: 'figure', op: '<', value: 50, text: '50 ms' },
      note:
        `p50/p99/max ${formatMs(subject.fromAnswer.p50)}/${formatMs(subject.fromAnswer.p99)}/${formatMs(subject.fromAnswer.max)}` +
        ` (bare ${formatMs(baseline.fromAnswer.p50)}/${formatMs(baseline.fromAnswer.p99)}/${formatMs(baseline.fromAnswer.max)});` +
        ` start→event p50/p99/max ${formatMs(subject.fromStart.p50)}/${formatMs(subject.fromStart.p99)}/${formatMs(subject.fromStart.max)}` +
        ` (bare ${formatMs(baseline.fromStart.p50)}/${formatMs(baseline.fromStart.p99)}/${formatMs(baseline.fromStart.max)});` +
        ` ${completeness(subject)} (bare ${completeness(baseline)})`,
    }),
  );
  report(
    row({
      benchmark: `fan-out RSS per stream (${streamsText})`,
      figure: subject.perStream,
      figureText: formatBytes(subject.perStream),
      baseline: baseline.perStream,
      baselineText: formatBytes(baseline.perStream),
      baselineName: 'bare hono sse',
      unit: 'bytes',
      target: { on: 'figure', op: '<', value: 50 * 1024, text: '50 KB' },
      note:
        `server RSS ${formatBytes(subject.rssBefore)} → ${formatBytes(subject.rssAfter)} with streams open, ${formatBytes(subject.rssEnd)} after the sends` +
        ` (bare ${formatBytes(baseline.rssBefore)} → ${formatBytes(baseline.rssAfter)}, ${formatBytes(baseline.rssEnd)})`,
    }),
  );
} finally {
  await cleanup();
}
