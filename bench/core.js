// core: sends (and reads) per second in-process, without sockets: `tidings.fetch` driven through
// `@tidings/core/node`'s `serveNode` with in-memory Node requests and responses (the Request
// the core gets and the way its answer is written are those of `tidings serve`), 50 in flight at
// a time (BENCH_CONNECTIONS, as the HTTP benchmarks' connections), on the SQLite file store, with
// the recipient's one browser connected through an event stream that is read in the same process.
// Baseline: the store's own `createNotification` (and `getNotification`) called directly with the
// same notification, as many in flight, which is the floor every send pays (its share of a
// group-committed write); the ratio is the share of a send left to that floor.
// The store syncs every commit to disk by default (synchronous 'full': a 201 survives a power
// loss); a third measurement runs the same sends with synchronous 'normal', which survives only a
// crash of the process, so that both figures come from one run.
//
// Run after `npm run build`: node bench/core.js
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTidings, newId, notificationObject } from '@tidings/core';
import { createSqliteStore } from '@tidings/store-sqlite';
import { cleanup, formatCount, highLimits, lowerMedian, report, row, settings, tempDir } from './lib/common.js';
import { inMemoryHttp, text } from './lib/in-memory-http.js';
import { prepareDatabase, sendBody } from './lib/setup.js';

/** Calls in flight at once, like the HTTP benchmarks' 50 connections: sends are group-committed. */
const IN_FLIGHT = settings.connections;

/** Calls `fn` in waves of IN_FLIGHT concurrent calls for `seconds` after a warm-up; returns calls per second. */
async function rate(seconds, fn) {
  const wave = () => Promise.all(Array.from({ length: IN_FLIGHT }, fn));
  const warmupEnd = performance.now() + Math.min(1000, seconds * 300);
  while (performance.now() < warmupEnd) await wave();
  let calls = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    await wave();
    calls += IN_FLIGHT;
  }
  return calls / ((performance.now() - start) / 1000);
}

async function measureTidings(dir, synchronous = 'full') {
  const setup = await prepareDatabase(dir, { recipients: 1 });
  const store = createSqliteStore({ path: setup.db, synchronous });
  const tidings = createTidings({ store, limits: highLimits });
  const http = inMemoryHttp(tidings);
  const reading = { events: 0 };
  const stream = await http.stream(`/v1/connect/${setup.tokens[0].token}`, (chunk) => {
    const written = text(chunk);
    for (
      let at = written.indexOf('event: notification');
      at !== -1;
      at = written.indexOf('event: notification', at + 1)
    ) {
      reading.events++;
    }
  });
  if (stream.statusCode !== 200) throw new Error(`connect answered ${stream.statusCode}`);

  const body = Buffer.from(JSON.stringify(sendBody(setup.tokens[0].recipient)));
  const headers = {
    authorization: `Bearer ${setup.apiKey}`,
    'content-type': 'application/json',
    'content-length': String(body.byteLength),
  };
  let lastId = null;
  const send = async () => {
    const response = await http.request('POST', '/v1/notifications', headers, body);
    if (response.status !== 201) throw new Error(`send answered ${response.status}: ${response.text}`);
    lastId = JSON.parse(response.text).id;
  };
  const sends = await rate(settings.coreSeconds, send);
  // Let the stream catch up, so that the count below is of sends that reached the browser.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const events = reading.events;

  const readHeaders = { authorization: headers.authorization };
  const read = async () => {
    const response = await http.request('GET', `/v1/notifications/${lastId}`, readHeaders);
    if (response.status !== 200) throw new Error(`read answered ${response.status}`);
  };
  const reads = await rate(settings.coreSeconds, read);
  const openStreams = tidings.openStreams();
  await tidings.close();
  await store.close();
  return { sends, reads, events, openStreams };
}

async function measureStore(dir) {
  const setup = await prepareDatabase(dir, { recipients: 1 });
  const store = createSqliteStore({ path: setup.db });
  // A browser for the recipient, registered as a connect would.
  await store.registerBrowser({
    id: newId('brw'),
    projectId: setup.projectId,
    recipient: setup.tokens[0].recipient,
    secretHash: '0'.repeat(64),
    now: Date.now(),
  });
  const content = sendBody(setup.tokens[0].recipient);
  let lastId = null;
  const send = async () => {
    const now = Date.now();
    const notification = {
      id: newId('ntf', now),
      projectId: setup.projectId,
      mode: 'live',
      recipient: content.recipient,
      title: content.title,
      body: content.body,
      url: content.url,
      icon: null,
      tag: null,
      data: content.data,
      ttl: 86_400,
      createdAt: now,
      expiresAt: now + 86_400_000,
    };
    const result = await store.createNotification({
      notification,
      newAttemptId: () => newId('att', now),
      idempotency: null,
      render: (created) => ({ status: 201, body: JSON.stringify(notificationObject(created)) }),
    });
    if (result.kind !== 'created') throw new Error(`createNotification: ${result.kind}`);
    lastId = notification.id;
  };
  const sends = await rate(settings.coreSeconds, send);
  const read = async () => {
    const found = await store.getNotification({ projectId: setup.projectId, id: lastId });
    if (!found) throw new Error('getNotification found nothing');
    JSON.stringify(notificationObject(found));
  };
  const reads = await rate(settings.coreSeconds, read);
  await store.close();
  return { sends, reads };
}

try {
  const root = tempDir('core');
  console.log(
    `core: in-process, ${IN_FLIGHT} requests in flight; ${settings.rounds} rounds of ${settings.coreSeconds} s per measurement, alternating with the store alone; medians`,
  );
  const floors = [];
  const cores = [];
  const fast = [];
  for (let round = 0; round < settings.rounds; round++) {
    for (const name of ['store', 'tidings', 'normal']) mkdirSync(join(root, `${name}-${round}`));
    floors.push(await measureStore(join(root, `store-${round}`)));
    cores.push(await measureTidings(join(root, `tidings-${round}`)));
    fast.push(await measureTidings(join(root, `normal-${round}`), 'normal'));
  }
  const fastSends = lowerMedian(fast.map((m) => m.sends));
  const floor = { sends: lowerMedian(floors.map((m) => m.sends)), reads: lowerMedian(floors.map((m) => m.reads)) };
  const core = {
    sends: lowerMedian(cores.map((m) => m.sends)),
    reads: lowerMedian(cores.map((m) => m.reads)),
    events: Math.min(...cores.map((m) => m.events)),
    openStreams: Math.min(...cores.map((m) => m.openStreams)),
  };
  const each = (runs, key) => runs.map((m) => formatCount(m[key])).join(', ');
  const streamNote =
    core.openStreams === 1
      ? `the browser's stream read at least ${formatCount(core.events)} events per round`
      : 'the stream ENDED during a round';
  report(
    row({
      benchmark: 'core send (in-process, sqlite)',
      figure: core.sends,
      figureText: `${formatCount(core.sends)} sends/s`,
      baseline: floor.sends,
      baselineText: `${formatCount(floor.sends)} /s`,
      baselineName: 'store.createNotification alone',
      unit: 'sends/s',
      target: null,
      note: `${(1e6 / core.sends).toFixed(0)} µs per send, of which the store ${(1e6 / floor.sends).toFixed(0)} µs; runs ${each(cores, 'sends')} vs ${each(floors, 'sends')}; ${streamNote}`,
    }),
  );
  report(
    row({
      benchmark: 'core send, synchronous normal',
      figure: fastSends,
      figureText: `${formatCount(fastSends)} sends/s`,
      baseline: core.sends,
      baselineText: `${formatCount(core.sends)} /s`,
      baselineName: 'core send, synchronous full (the default)',
      unit: 'sends/s',
      target: null,
      note: `what skipping the fsync per group commit gains, at the price of the last sends on a power loss; runs ${each(fast, 'sends')}`,
    }),
  );
  report(
    row({
      benchmark: 'core read (in-process, sqlite)',
      figure: core.reads,
      figureText: `${formatCount(core.reads)} reads/s`,
      baseline: floor.reads,
      baselineText: `${formatCount(floor.reads)} /s`,
      baselineName: 'store.getNotification alone',
      unit: 'reads/s',
      target: null,
      note: `${(1e6 / core.reads).toFixed(0)} µs per read, of which the store ${(1e6 / floor.reads).toFixed(0)} µs; runs ${each(cores, 'reads')} vs ${each(floors, 'reads')}`,
    }),
  );
} finally {
  await cleanup();
}
