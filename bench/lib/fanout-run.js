// The parts of the fan-out benchmarks shared by bench/fanout.js and bench/headroom.js: streams
// opened by a separate client process (bench/lib/stream-client.js), sends at a steady rate, and
// the latency from each send to each of its events at the client.
export { eventPayload } from '../servers/baseline-object.js';

import http from 'node:http';
import { join } from 'node:path';
import {
  benchDir,
  forkHelper,
  formatBytes,
  formatCount,
  formatMs,
  percentile,
  rssBytes,
  settings,
  sleep,
  wallNow,
} from './common.js';

const streamClient = join(benchDir, 'lib/stream-client.js');

/** POSTs a body and resolves with the status and the answer's text. */
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

/**
 * Sends `rate` times a second for `seconds` without waiting for answers. `sendFor(i)` gives the
 * i-th send: `{ url, headers, body, id }`; without `id`, the id is read from the 201 answer's JSON
 * (Tidings and the Node peers); with it, any 2xx counts (Nchan's publisher answers 201 or 202
 * with its own text).
 */
export async function sendSteadily({ sendFor, rate, seconds, localAddress }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32, ...(localAddress ? { localAddress } : {}) });
  const sends = [];
  const failures = [];
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const { url, headers, body, id } = sendFor(i);
    const start = wallNow();
    pending.push(
      post(agent, url, { ...headers, 'content-length': Buffer.byteLength(body) }, body).then(
        ({ status, body: text }) => {
          const answered = wallNow();
          const ok = id ? status >= 200 && status < 300 : status === 201;
          if (!ok) {
            failures.push(`${status} ${text.slice(0, 200)}`);
            return;
          }
          sends.push({ id: id ?? JSON.parse(text).id, start, answered });
        },
        (error) => failures.push(error.code ?? String(error)),
      ),
    );
  }
  const issued = (performance.now() - started) / 1000;
  await Promise.all(pending);
  agent.destroy();
  return { sends, failures, issued, seconds: (performance.now() - started) / 1000 };
}

export function latencies(sends, arrivals) {
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

/** RSS of the server: its own process (nginx runs as one process here, master_process off). */
export function serverRss(server) {
  return rssBytes(server.pid);
}

/**
 * Opens the streams of `paths` on a server from a fresh client process and measures the server's
 * RSS before and after. Returns the client (to send and collect with) and the figures.
 */
export async function openStreams({ label, server, paths, readyOn, localAddresses }) {
  const { hostname, port } = new URL(server.url);
  const client = forkHelper(streamClient);
  await sleep(500);
  const rssBefore = serverRss(server);
  const opened = await client.request(
    { type: 'open', host: hostname, port: Number(port), paths, concurrency: 64, record: true, readyOn, localAddresses },
    'opened',
  );
  if (opened.failed > 0) console.warn(`${label}: ${opened.failed} streams failed to open: ${opened.errors.join(', ')}`);
  await sleep(1500);
  const rssAfter = serverRss(server);
  console.log(
    `${label}: ${formatCount(opened.ok)} streams open in ${(opened.ms / 1000).toFixed(1)} s; server RSS ${formatBytes(rssBefore)} → ${formatBytes(rssAfter)}`,
  );
  return { client, opened, rssBefore, rssAfter, perStream: (rssAfter - rssBefore) / Math.max(1, opened.ok) };
}

/**
 * Sends steadily to streams opened by `openStreams` and collects the events' latencies, after
 * `settings.fanoutWarmup` seconds of the same sends whose events are collected and dropped.
 */
export async function sendAndCollect({ label, server, client, sendFor, rate, seconds, browsersPerRecipient }) {
  if (settings.fanoutWarmup > 0) {
    const warmup = await sendSteadily({ sendFor, rate, seconds: settings.fanoutWarmup });
    if (warmup.failures.length > 0) console.warn(`${label}: failed warm-up sends, e.g. ${warmup.failures[0]}`);
    await sleep(500);
    await client.request({ type: 'collect' }, 'collected');
  }
  const run = await sendSteadily({ sendFor, rate, seconds });
  if (run.failures.length > 0) console.warn(`${label}: failed sends, e.g. ${run.failures.slice(0, 3).join(' / ')}`);
  await sleep(1000);
  const rssEnd = serverRss(server);
  const collected = await client.request({ type: 'collect' }, 'collected');
  const stats = latencies(run.sends, collected.arrivals);
  const expected = run.sends.length * browsersPerRecipient;
  const attempted = run.sends.length + run.failures.length;
  console.log(
    `${label}: ${formatCount(run.sends.length)} sends in ${run.seconds.toFixed(1)} s (${run.failures.length} failed; ` +
      `${(attempted / run.issued).toFixed(0)}/s issued), ` +
      `${formatCount(stats.received)} of ${formatCount(expected)} events received; ` +
      `201→event p50/p99/max ${formatMs(stats.fromAnswer.p50)}/${formatMs(stats.fromAnswer.p99)}/${formatMs(stats.fromAnswer.max)}, ` +
      `start→event ${formatMs(stats.fromStart.p50)}/${formatMs(stats.fromStart.p99)}/${formatMs(stats.fromStart.max)}, ` +
      `start→answer ${formatMs(stats.sendLatency.p50)}/${formatMs(stats.sendLatency.p99)}; RSS after sends ${formatBytes(rssEnd)}`,
  );
  return {
    ...stats,
    sent: run.sends.length,
    failedSends: run.failures.length,
    issuedRate: attempted / run.issued,
    achievedRate: run.sends.length / run.seconds,
    expected,
    ended: collected.ended,
    rssEnd,
  };
}

/** Opens, sends, collects and closes: one measurement of one server. */
export async function measure({ label, server, paths, readyOn, sendFor, rate, seconds, browsersPerRecipient }) {
  const open = await openStreams({ label, server, paths, readyOn });
  const result = await sendAndCollect({
    label,
    server,
    client: open.client,
    sendFor,
    rate,
    seconds,
    browsersPerRecipient,
  });
  await open.client.close();
  return {
    ...result,
    opened: open.opened.ok,
    failedStreams: open.opened.failed,
    rssBefore: open.rssBefore,
    rssAfter: open.rssAfter,
    perStream: open.perStream,
  };
}

export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
