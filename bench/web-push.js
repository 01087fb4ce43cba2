// Web Push from one instance: how many messages per second the `push` job kind of one Tidings
// instance hands to a push service, and how long a send takes to reach the push service.
//
// Subject: `createTidings` on a SQLite file store with Web Push on (grace 0, so that a job is due
// at once) and the `push` job kind of `webPush()` as `tidings serve` runs it (the runner's default concurrency of 4),
// sends made through `tidings.fetch`; every message is encrypted (aes128gcm) and signed (VAPID)
// for its browser's subscription. The push service is bench/servers/push-sink.js, a process of
// its own that answers 201. Baseline, in the same run against the same sink: a bare loop of the
// `web-push` library, `generateRequestDetails` + `fetch` for the same subscriptions and payload
// size, 4 at a time.
//
// BENCH_PUSH_TLS=1: the sink speaks TLS with a certificate made here (`openssl`), offering HTTP/2
// as push services do, so that the subject sends over HTTP/2 and the baseline's `fetch` over
// HTTP/1.1 on TLS; the benchmark runs itself again with NODE_EXTRA_CA_CERTS naming it.
//
// Run after `npm run build`: node bench/web-push.js (BENCH_PUSHES, BENCH_PUSH_RATE, BENCH_ROUNDS).
import { spawnSync } from 'node:child_process';
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTidings, inbox, newId, requestLog, silentLogger } from '@tidings/core';
import { pushEnvelope, webPush } from '@tidings/core/node';
import { createSqliteStore } from '@tidings/store-sqlite';
import webpush from 'web-push';
import { writeTestCertificate } from '../scripts/test-certificate.mjs';
import {
  cleanup,
  envNumber,
  formatCount,
  formatMs,
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

const TLS = process.env.BENCH_PUSH_TLS === '1';
if (TLS && !process.env.PUSH_SINK_TLS_CERT) {
  // A certificate of this run's own, trusted by this process's TLS (both sides) through
  // NODE_EXTRA_CA_CERTS, which Node reads only at its start.
  const dir = mkdtempSync(join(tmpdir(), 'tidings-bench-tls-'));
  const { key, cert } = writeTestCertificate(dir, { addresses: ['127.0.0.1'], days: 1 });
  const env = { ...process.env, PUSH_SINK_TLS_KEY: key, PUSH_SINK_TLS_CERT: cert, NODE_EXTRA_CA_CERTS: cert };
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { env, stdio: 'inherit' });
  rmSync(dir, { recursive: true, force: true });
  process.exit(child.status ?? 1);
}

const PUSHES = envNumber('BENCH_PUSHES', 2000);
const BROWSERS = 200;
const CONCURRENCY = envNumber('BENCH_PUSH_CONCURRENCY', 4);
const LATENCY_SENDS = envNumber('BENCH_PUSH_LATENCY_SENDS', 300);
const LATENCY_RATE = envNumber('BENCH_PUSH_RATE', 50);

/** A browser's subscription keys, as `PushSubscription.toJSON()` gives them. */
function subscriptionKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

const { request: sink, waitForCount } = sinkClient(() => pushSink.url, 'the push service', 120_000);

/** An instance with `browsers` subscribed browsers, each the one browser of its recipient. */
async function startInstance(label, browsers) {
  const dir = tempDir(`push-${label}`);
  const store = createSqliteStore({
    path: join(dir, 'tidings.db'),
    synchronous: process.env.BENCH_PUSH_SYNC || 'full',
  });
  const push = {
    vapidSubject: 'mailto:bench@example.com',
    allowedHosts: ['127.0.0.1'],
    allowHttp: !TLS,
    allowPrivateAddresses: true,
    graceMs: 0,
  };
  const tidings = createTidings({
    store,
    logger: silentLogger,
    limits: { perKey: 1e9, perProject: 1e9, perAccount: 1e9, connectPerIp: 1e9, eventsPerIp: 1e9 },
    features: [inbox(), requestLog(), webPush(push)],
    jobs: { concurrency: CONCURRENCY },
  });
  const account = await tidings.admin.createAccount({ email: 'bench@example.com', verified: true });
  const project = await tidings.admin.createProject({ accountId: account.id, name: 'bench' });
  const key = (await tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key;
  const call = (path, init = {}) =>
    tidings.fetch(new Request(`http://tidings.bench${path}`, init), { clientAddress: '127.0.0.1' });
  const recipients = [];
  for (let i = 0; i < browsers; i++) {
    const recipient = `${label}-${i}`;
    const token = await tidings.createConnectToken({ projectId: project.id, recipient });
    const browser = await (await call(`/v1/connect/${token.token}`, { method: 'POST' })).json();
    const saved = await call(`/v1/browsers/${browser.browser_id}/push-subscription`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        browser_secret: browser.browser_secret,
        endpoint: `${pushSink.url}/push/${recipient}`,
        keys: subscriptionKeys(),
      }),
    });
    if (saved.status !== 200) throw new Error(`subscription refused: ${saved.status} ${await saved.text()}`);
    recipients.push(recipient);
  }
  const send = (recipient) =>
    call('/v1/notifications', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        recipient,
        title: 'Your order shipped',
        body: 'It arrives on Tuesday.',
        url: '/orders/42',
      }),
    });
  return {
    recipients,
    send,
    async close() {
      await tidings.close();
      await store.close();
    },
  };
}

/** Messages per second from sends of `pushes` notifications spread over the instance's browsers. */
async function tidingsThroughput(instance, pushes) {
  await sink('/reset', { method: 'POST' });
  const started = performance.now();
  for (let i = 0; i < pushes; i++) {
    const response = await instance.send(instance.recipients[i % instance.recipients.length]);
    if (response.status !== 201) throw new Error(`send answered ${response.status}`);
  }
  const { versions } = await waitForCount(pushes);
  tidingsVersions = versions;
  return pushes / ((performance.now() - started) / 1000);
}

/** The HTTP versions of the subject's last round's messages at the sink. */
let tidingsVersions = {};

/** The same number of messages with the `web-push` library alone, `CONCURRENCY` at a time. */
async function bareThroughput(pushes, payloadBytes) {
  await sink('/reset', { method: 'POST' });
  const vapid = { subject: 'mailto:bench@example.com', ...webpush.generateVAPIDKeys() };
  const subscriptions = Array.from({ length: BROWSERS }, (_, i) => ({
    endpoint: `${pushSink.url}/push/bare-${i}`,
    keys: subscriptionKeys(),
  }));
  const payload = 'x'.repeat(payloadBytes);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < pushes) {
        const subscription = subscriptions[next++ % subscriptions.length];
        const details = webpush.generateRequestDetails(subscription, payload, {
          vapidDetails: vapid,
          TTL: 86_400,
          contentEncoding: 'aes128gcm',
        });
        const response = await fetch(details.endpoint, {
          method: 'POST',
          headers: details.headers,
          body: details.body,
        });
        await response.arrayBuffer();
        if (response.status !== 201) throw new Error(`push service answered ${response.status}`);
      }
    }),
  );
  const { versions } = await waitForCount(pushes);
  bareVersions = versions;
  return pushes / ((performance.now() - started) / 1000);
}

/** The HTTP versions of the baseline's last round's messages at the sink. */
let bareVersions = {};

/** Send → push service, at a steady rate, each send to a browser of its own (one message per path). */
async function sendToPushLatency(instance, sends, rate) {
  await sink('/reset', { method: 'POST' });
  const sentAt = new Map();
  const interval = 1000 / rate;
  const started = performance.now();
  for (let i = 0; i < sends; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const recipient = instance.recipients[i];
    sentAt.set(`/push/${recipient}`, wallNow());
    const response = await instance.send(recipient);
    if (response.status !== 201) throw new Error(`send answered ${response.status}`);
  }
  const { arrivals } = await waitForCount(sends);
  const latencies = [...sentAt].map(([path, at]) => arrivals[path] - at).sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) };
}

/** The plaintext size of the subject's messages: the envelope of the notification sent above. */
const ENVELOPE_BYTES = Buffer.byteLength(
  pushEnvelope({
    attemptId: newId('att'),
    browserId: newId('brw'),
    seq: 1,
    notificationId: newId('ntf'),
    title: 'Your order shipped',
    body: 'It arrives on Tuesday.',
    url: '/orders/42',
    icon: null,
    tag: null,
    data: null,
    createdAt: Date.now(),
    expiresAt: Date.now() + 86_400_000,
  }),
);

const pushSink = await startServer('push-sink', 'bench/servers/push-sink.js', []);
try {
  console.log(
    `web push${TLS ? ' over TLS (Tidings: HTTP/2, baseline fetch: HTTP/1.1)' : ''}: ${PUSHES} messages to ${BROWSERS} browsers, ${CONCURRENCY} at a time; ` +
      `latency: ${LATENCY_SENDS} sends at ${LATENCY_RATE}/s; ${settings.rounds} rounds`,
  );
  const subject = await startInstance('tp', BROWSERS);
  const latencyInstance = await startInstance('lat', LATENCY_SENDS);
  try {
    // Warm-up of both sides.
    await tidingsThroughput(subject, 200);
    await bareThroughput(200, ENVELOPE_BYTES);
    const tidingsRuns = [];
    const bareRuns = [];
    for (let round = 0; round < settings.rounds; round++) {
      tidingsRuns.push(await tidingsThroughput(subject, PUSHES));
      bareRuns.push(await bareThroughput(PUSHES, ENVELOPE_BYTES));
    }
    report(
      row({
        benchmark: 'web push messages from one instance',
        figure: lowerMedian(tidingsRuns),
        figureText: `${formatCount(lowerMedian(tidingsRuns))} pushes/s`,
        baseline: lowerMedian(bareRuns),
        baselineText: `${formatCount(lowerMedian(bareRuns))} pushes/s`,
        baselineName: 'bare web-push + fetch loop',
        unit: 'pushes/s',
        target: null,
        note:
          `runs ${tidingsRuns.map(formatCount).join(', ')} vs ${bareRuns.map(formatCount).join(', ')} pushes/s; ` +
          `HTTP versions at the sink ${JSON.stringify(tidingsVersions)} vs ${JSON.stringify(bareVersions)}`,
      }),
    );
    const latency = await sendToPushLatency(latencyInstance, LATENCY_SENDS, LATENCY_RATE);
    report(
      row({
        benchmark: 'web push: send → push service p99 (grace 0)',
        figure: latency.p99,
        figureText: formatMs(latency.p99),
        unit: 'ms',
        target: null,
        note: `p50 ${formatMs(latency.p50)}, p99 ${formatMs(latency.p99)}, max ${formatMs(latency.max)} over ${LATENCY_SENDS} sends`,
      }),
    );
  } finally {
    await subject.close();
    await latencyInstance.close();
  }
} finally {
  await cleanup();
}
