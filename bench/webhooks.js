// Webhooks from one instance: how many signed webhook messages per second one `tidings serve`
// process sends to a receiver, and how long a receipt takes to reach the receiver as a webhook.
//
// Subject: `tidings serve --webhooks-allow-http --webhooks-allow-private` on a SQLite file (its
// default `synchronous: 'full'`), its job runner at its default concurrency (4), one endpoint
// that asks for `notification.attempt.updated` and `notification.completed`. The receiver is
// bench/servers/webhook-sink.js, a process of its own that parses each body and answers 204.
// Messages are made by delivered receipts (`POST /v1/events`) of one polling browser, two per
// receipt (the attempt's update and the notification's completion); each measured round then
// replays all of them (`tidings webhook replay`), so a round measures the sending alone, from
// the first message's arrival to the last one's. Baseline, in the same run against the same
// sink, alternating rounds: a bare loop of `fetch`es of the same bodies with Standard Webhooks
// headers (HMAC-SHA256 of node:crypto), as many at a time.
//
// Run after `npm run build`: node bench/webhooks.js (BENCH_WEBHOOK_RECEIPTS,
// BENCH_WEBHOOK_LATENCY_RECEIPTS, BENCH_WEBHOOK_RATE, BENCH_ROUNDS).
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTidings, newId } from '@tidings/core';
import { webhooks } from '@tidings/core/node';
import { createSqliteStore } from '@tidings/store-sqlite';
import {
  cleanup,
  cliBin,
  envNumber,
  formatCount,
  formatMs,
  highLimits,
  lowerMedian,
  percentile,
  report,
  row,
  settings,
  sleep,
  startServer,
  tempDir,
  wallNow,
} from './lib/common.js';
import { sinkClient } from './lib/sink.js';

const RECEIPTS = envNumber('BENCH_WEBHOOK_RECEIPTS', 500);
const LATENCY_RECEIPTS = envNumber('BENCH_WEBHOOK_LATENCY_RECEIPTS', 300);
const RATE = envNumber('BENCH_WEBHOOK_RATE', 20);
/** The baseline's fetches at a time: the job runner's default concurrency, which `tidings serve` runs. */
const CONCURRENCY = 4;
const SEND_CONCURRENCY = 16;

const { request: sink, waitForCount } = sinkClient(() => webhookSink.url, 'the receiver', 300_000);

/** Runs `tidings ...args --json` to completion and parses its answer. */
function tidingsJson(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliBin, ...args, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (data) => {
      out += data;
    });
    child.stderr.on('data', (data) => {
      out += data;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`tidings ${args.join(' ')}: ${out}`)),
    );
  });
}

/** A database with a project, a live key, a connect token and the endpoint; then `tidings serve` on it. */
async function startSubject() {
  const dir = tempDir('webhooks');
  const db = join(dir, 'tidings.db');
  const store = createSqliteStore({ path: db });
  const setup = createTidings({ store, sweepIntervalMs: 0, jobs: false, features: [webhooks({ allowHttp: true })] });
  let prepared;
  try {
    const account = await setup.admin.createAccount({ email: 'bench@example.com', verified: true });
    const project = await setup.admin.createProject({ accountId: account.id, name: 'bench' });
    const key = await setup.admin.createKey({ projectId: project.id, mode: 'live', name: 'bench' });
    const token = await setup.createConnectToken({ projectId: project.id, recipient: 'user-0', ttlSeconds: 86_400 });
    const endpoint = await setup.admin.createWebhookEndpoint({
      projectId: project.id,
      url: `${webhookSink.url}/hooks/bench`,
      events: ['notification.attempt.updated', 'notification.completed'],
    });
    prepared = { key: key.key, token: token.token, endpointId: endpoint.id, secret: endpoint.secret };
  } finally {
    await setup.close();
    await store.close();
  }
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ limits: highLimits, staleBrowserMs: 3_600_000 }));
  const server = await startServer(
    'tidings',
    cliBin,
    ['serve', '--db', db, '--port', '0', '--config', config, '--webhooks-allow-http', '--webhooks-allow-private'],
    { cpuProf: true },
  );
  const call = (path, init = {}) => fetch(`${server.url}${path}`, init);
  const browser = await (await call(`/v1/connect/${prepared.token}`, { method: 'POST' })).json();
  if (!browser.browser_id) throw new Error(`the browser did not register: ${JSON.stringify(browser)}`);
  return { ...prepared, db, server, call, browser };
}

/** Sends `count` notifications to the subject's browser; resolves with their attempt ids. */
async function sendNotifications(subject, count) {
  const attemptIds = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: SEND_CONCURRENCY }, async () => {
      while (next < count) {
        const index = next++;
        const response = await subject.call('/v1/notifications', {
          method: 'POST',
          headers: { Authorization: `Bearer ${subject.key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ recipient: 'user-0', title: 'Your order shipped', body: 'It arrives on Tuesday.' }),
        });
        if (response.status !== 201) throw new Error(`send answered ${response.status}: ${await response.text()}`);
        attemptIds[index] = (await response.json()).attempts[0].id;
      }
    }),
  );
  return attemptIds;
}

/** Posts a delivered receipt of each attempt, `batch` to a request. */
async function postReceipts(subject, attemptIds, batch) {
  for (let i = 0; i < attemptIds.length; i += batch) {
    const response = await subject.call('/v1/events', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        browser_id: subject.browser.browser_id,
        browser_secret: subject.browser.browser_secret,
        events: attemptIds.slice(i, i + batch).map((id) => ({ type: 'delivered', attempt_id: id })),
      }),
    });
    if (response.status !== 202) throw new Error(`receipts answered ${response.status}: ${await response.text()}`);
  }
}

/** Messages per second of one replay of every message of the endpoint, first arrival to last. */
async function tidingsRound(subject, since, count) {
  await sink('/reset', { method: 'POST' });
  const replayed = await tidingsJson(['webhook', 'replay', subject.endpointId, '--since', since, '--db', subject.db]);
  if (replayed.count !== count) throw new Error(`replayed ${replayed.count} messages, not ${count}`);
  const stats = await waitForCount(count);
  return ((stats.count - 1) * 1000) / (stats.last - stats.first);
}

/** The same bodies, signed as Standard Webhooks says, `CONCURRENCY` fetches at a time. */
async function bareRound(bodies, count, url) {
  await sink('/reset', { method: 'POST' });
  // The bytes a `whsec_` secret stands for.
  const key = randomBytes(32);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const body = bodies[next++ % bodies.length];
        const id = newId('msg');
        const timestamp = Math.floor(Date.now() / 1000);
        const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
        const response = await fetch(url, {
          method: 'POST',
          redirect: 'manual',
          signal: AbortSignal.timeout(15_000),
          headers: {
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': `v1,${signature}`,
            'content-type': 'application/json',
            'user-agent': 'Tidings',
          },
          body,
        });
        await response.arrayBuffer();
        if (response.status !== 204) throw new Error(`the receiver answered ${response.status}`);
      }
    }),
  );
  const stats = await waitForCount(count);
  return ((stats.count - 1) * 1000) / (stats.last - stats.first);
}

/** Receipt → webhook, at a steady rate, one receipt a request. */
async function receiptToWebhookLatency(subject, attemptIds, rate) {
  await sink('/reset', { method: 'POST' });
  const postedAt = new Map();
  const interval = 1000 / rate;
  const started = performance.now();
  for (let i = 0; i < attemptIds.length; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    postedAt.set(attemptIds[i], wallNow());
    await postReceipts(subject, [attemptIds[i]], 1);
  }
  const { delivered } = await waitForCount(attemptIds.length * 2);
  const latencies = [...postedAt].map(([id, at]) => delivered[id] - at).sort((a, b) => a - b);
  if (latencies.some((latency) => !Number.isFinite(latency))) throw new Error('a receipt has no webhook');
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) };
}

const webhookSink = await startServer('webhook-sink', 'bench/servers/webhook-sink.js', []);
try {
  console.log(
    `webhooks: ${RECEIPTS} receipts (${RECEIPTS * 2} messages), ${CONCURRENCY} at a time; ` +
      `latency: ${LATENCY_RECEIPTS} receipts at ${RATE}/s; ${settings.rounds} rounds`,
  );
  const subject = await startSubject();
  const since = new Date(Date.now() - 1000).toISOString();
  // The messages each round replays: an update and a completion per receipt.
  const attemptIds = await sendNotifications(subject, RECEIPTS);
  await postReceipts(subject, attemptIds, 100);
  const count = RECEIPTS * 2;
  await waitForCount(count);
  const messages = await tidingsJson(['webhook', 'messages', subject.endpointId, '--db', subject.db]);
  const bodies = messages.map((message) => JSON.stringify(message.payload));
  if (bodies.length === 0) throw new Error('no message to take bodies from');

  // Warm-up of both sides.
  await tidingsRound(subject, since, count);
  await bareRound(bodies, Math.min(count, 400), `${webhookSink.url}/hooks/bare`);
  const tidingsRuns = [];
  const bareRuns = [];
  for (let round = 0; round < settings.rounds; round++) {
    tidingsRuns.push(await tidingsRound(subject, since, count));
    bareRuns.push(await bareRound(bodies, count, `${webhookSink.url}/hooks/bare`));
  }
  report(
    row({
      benchmark: 'webhook messages from one instance',
      figure: lowerMedian(tidingsRuns),
      figureText: `${formatCount(lowerMedian(tidingsRuns))} messages/s`,
      baseline: lowerMedian(bareRuns),
      baselineText: `${formatCount(lowerMedian(bareRuns))} messages/s`,
      baselineName: 'bare signed fetch loop',
      unit: 'messages/s',
      target: null,
      note: `runs ${tidingsRuns.map(formatCount).join(', ')} vs ${bareRuns.map(formatCount).join(', ')} messages/s`,
    }),
  );

  const latencyAttempts = await sendNotifications(subject, LATENCY_RECEIPTS);
  const latency = await receiptToWebhookLatency(subject, latencyAttempts, RATE);
  report(
    row({
      benchmark: 'webhooks: receipt → webhook p99',
      figure: latency.p99,
      figureText: formatMs(latency.p99),
      unit: 'ms',
      target: null,
      note: `p50 ${formatMs(latency.p50)}, p99 ${formatMs(latency.p99)}, max ${formatMs(latency.max)} over ${LATENCY_RECEIPTS} receipts at ${RATE}/s`,
    }),
  );
} finally {
  await cleanup();
}
