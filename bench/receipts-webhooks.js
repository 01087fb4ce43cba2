// What a browser's receipt costs the store when its project has a webhook endpoint that wants no
// event of an attempt (only `browser.connected` and `browser.disconnected`), against the same
// receipt in a project without endpoints: such a project must pay for its receipts what one
// without webhooks pays. Through the store itself, one `applyReceipts` (a `delivered` receipt of
// one attempt) at a time, BENCH_RECEIPTS (2,000) per project after as many unmeasured, the two
// projects of one store in alternating blocks of 100, over BENCH_ROUNDS rounds on fresh stores;
// the median round counts. The SQLite file runs with `synchronous: 'normal'`: the flush of
// each durable write costs both projects alike and would only add its noise. Prints the wall
// time and the CPU time per receipt: this process's, and on PostgreSQL the server's too.
// Figure: the project with the endpoint. Baseline: the project without. Target ≤ 1.1×.
//
// Run after `npm run build`: node bench/receipts-webhooks.js (BENCH_RECEIPTS_STORES=sqlite,postgres;
// BENCH_POSTGRES_URL).
import { join } from 'node:path';
import { newId } from '@tidings/core';
import { createPostgresStore } from '@tidings/store-postgres';
import { createSqliteStore } from '@tidings/store-sqlite';
import { cleanup, cpuMsOfCommand, envNumber, lowerMedian, report, row, settings, tempDir } from './lib/common.js';
import { notificationInput, postgresBenchDb, storeProject } from './lib/setup.js';

const RECEIPTS = Math.max(100, Math.round(envNumber('BENCH_RECEIPTS', 2_000)));
const BLOCK = 100;
const STORES = (process.env.BENCH_RECEIPTS_STORES ?? 'sqlite,postgres').split(',').filter(Boolean);

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** Sends `count` notifications to the project's one browser and returns their attempts' ids. */
async function attemptsOf(store, projectId, browserId, count) {
  const ids = [];
  for (let i = 0; i < count; i++) {
    const result = await store.createNotification(
      notificationInput({ projectId, recipient: 'user-1', title: 'Receipts', at: Date.now() }),
    );
    if (result.kind !== 'created') throw new Error(result.kind);
    ids.push(result.created.attempts.find((attempt) => attempt.browserId === browserId).id);
  }
  return ids;
}

/** Applies one delivered receipt per attempt, one call at a time; per receipt: wall, own CPU, server CPU (µs). */
async function applyAll(store, browserId, attemptIds, postgres) {
  const wall = performance.now();
  const cpu = cpuMicros();
  const server = postgres ? cpuMsOfCommand('postgres') : 0;
  for (const attemptId of attemptIds) {
    const at = Date.now();
    const { deliveredAttemptIds } = await store.applyReceipts({
      browserId,
      receipts: [{ type: 'delivered', attemptId, at }],
      now: at,
    });
    if (deliveredAttemptIds.length !== 1) throw new Error('a receipt did not deliver its attempt');
  }
  const n = attemptIds.length;
  return {
    wall: ((performance.now() - wall) * 1000) / n,
    cpu: (cpuMicros() - cpu) / n,
    server: postgres ? ((cpuMsOfCommand('postgres') - server) * 1000) / n : 0,
  };
}

async function round(kind, endpointFirst) {
  const postgres = kind === 'postgres';
  const store = postgres
    ? await createPostgresStore({ connectionString: postgresBenchDb(), maxConnections: 4 })
    : // Without a flush per write: it costs both projects alike, and its noise would hide the difference.
      createSqliteStore({ path: join(tempDir('receipts-webhooks'), 'tidings.db'), synchronous: 'normal' });
  try {
    const now = Date.now();
    const projects = {};
    for (const name of ['plain', 'endpoint']) {
      const projectId = await storeProject(store, now);
      const browser = await store.registerBrowser({
        id: newId('brw'),
        projectId,
        recipient: 'user-1',
        secretHash: 'x',
        now,
      });
      projects[name] = { projectId, browserId: browser.id };
    }
    const created = await store.createWebhookEndpoint({
      id: newId('whe'),
      projectId: projects.endpoint.projectId,
      url: 'https://hooks.example.com/tidings',
      description: null,
      events: ['browser.connected', 'browser.disconnected'],
      secret: 'whsec_bench',
      now,
      maxEndpoints: 10,
    });
    if (created.kind !== 'created') throw new Error(created.kind);
    // Both projects' receipts in alternating blocks of BLOCK, so that what drifts over a round
    // (the WAL's size, a checkpoint, the machine's other work) falls on both alike.
    const order = endpointFirst ? ['endpoint', 'plain'] : ['plain', 'endpoint'];
    const attempts = {};
    for (const name of order) {
      const { projectId, browserId } = projects[name];
      attempts[name] = await attemptsOf(store, projectId, browserId, RECEIPTS * 2);
      await applyAll(store, browserId, attempts[name].slice(0, RECEIPTS), postgres);
    }
    const measured = { plain: { wall: 0, cpu: 0, server: 0 }, endpoint: { wall: 0, cpu: 0, server: 0 } };
    for (let from = RECEIPTS; from < RECEIPTS * 2; from += BLOCK) {
      for (const name of order) {
        const block = attempts[name].slice(from, from + BLOCK);
        const taken = await applyAll(store, projects[name].browserId, block, postgres);
        for (const part of ['wall', 'cpu', 'server']) measured[name][part] += (taken[part] * block.length) / RECEIPTS;
      }
    }
    return measured;
  } finally {
    await store.close();
  }
}

try {
  console.log(
    `receipts with webhooks: ${RECEIPTS} receipts per turn after as many unmeasured, ${settings.rounds} rounds, stores ${STORES.join(', ')}`,
  );
  for (const kind of STORES) {
    const rounds = [];
    for (let i = 0; i < settings.rounds; i++) {
      const measured = await round(kind, i % 2 === 1);
      const total = (m) => m.cpu + m.server;
      console.log(
        `${kind}, round ${i + 1}: CPU per receipt ${total(measured.endpoint).toFixed(1)} µs with the endpoint, ${total(measured.plain).toFixed(1)} µs without (${(total(measured.endpoint) / total(measured.plain)).toFixed(2)}×); wall ${measured.endpoint.wall.toFixed(1)} / ${measured.plain.wall.toFixed(1)} µs`,
      );
      rounds.push(measured);
    }
    const median = (name, part) =>
      lowerMedian(rounds.map((m) => (part ? m[name][part] : m[name].cpu + m[name].server)));
    const figure = median('endpoint');
    const baseline = median('plain');
    report(
      row({
        benchmark: `receipt, ${kind} store, project with an endpoint of browser events only: CPU per receipt`,
        figure,
        figureText: `${figure.toFixed(1)} µs`,
        baseline,
        baselineText: `${baseline.toFixed(1)} µs`,
        baselineName: 'project without endpoints',
        unit: 'µs',
        target: { op: '<=', value: 1.1 },
        note: `median of ${settings.rounds} rounds; wall per receipt ${median('endpoint', 'wall').toFixed(1)} against ${median('plain', 'wall').toFixed(1)} µs${kind === 'postgres' ? `; of the CPU, PostgreSQL's ${median('endpoint', 'server').toFixed(1)} against ${median('plain', 'server').toFixed(1)} µs` : ''}`,
      }),
    );
  }
} finally {
  await cleanup();
}
