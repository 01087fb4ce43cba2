// A send through the application's own PostgreSQL transaction (docs/transactions.md) against the
// same send as `POST /v1/notifications`: this process's CPU time per send, both in process, on
// one Tidings instance over one PostgreSQL schema. Subject: `BEGIN`, an INSERT of the
// application's own, `tidings.notifications.send(input, { transaction: client, idempotencyKey })`,
// `COMMIT`, and what the commit then costs the instance (its `pg_notify` heard, the streams of
// the browser caught up). Baseline: the application's INSERT in a transaction of its own, then
// the send as a request to `tidings.fetch` with an API key and an Idempotency-Key (the route's
// key check, limits, body parsing and answer; no socket). Both run from CONNECTIONS workers at
// once, to RECIPIENTS recipients with one connected browser each. PostgreSQL's own CPU is printed
// too (every `postgres` process of the machine: meaningful only on a server with nothing else).
//
// Run after `npm run build`: node bench/tx-send.js (BENCH_POSTGRES_URL, BENCH_DURATION, BENCH_ROUNDS).
import { createTidings, newId, silentLogger } from '@tidings/core';
import { createPostgresStore } from '@tidings/store-postgres';
import pg from 'pg';
import { cleanup, cpuMsOfCommand, formatCount, highLimits, lowerMedian, report, row, settings } from './lib/common.js';
import { benchPostgresUrl, postgresBenchDb } from './lib/setup.js';

const CONNECTIONS = 8;
const RECIPIENTS = 64;

const connectionString = postgresBenchDb();
const schema = new URL(connectionString).searchParams.get('schema');
const store = await createPostgresStore({ connectionString, maxConnections: CONNECTIONS + 2 });
const tidings = createTidings({
  store,
  project: 'bench-app',
  logger: silentLogger,
  sweepIntervalMs: 0,
  limits: highLimits,
});
const app = new pg.Pool({ connectionString: benchPostgresUrl, max: CONNECTIONS });
const orders = `"${schema}_app".orders`;
await app.query(`CREATE SCHEMA "${schema}_app"`);
await app.query(`CREATE TABLE ${orders} (id text PRIMARY KEY, at int8 NOT NULL)`);
const project = await tidings.project();
const key = (await tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key;
for (let i = 0; i < RECIPIENTS; i++) {
  await store.registerBrowser({
    id: newId('brw'),
    projectId: project.id,
    recipient: `user-${i}`,
    secretHash: 'x',
    now: Date.now(),
  });
}

let sequence = 0;
/** One order and its notification, through the application's transaction. */
async function inTransaction(client) {
  const n = sequence++;
  await client.query('BEGIN');
  await client.query(`INSERT INTO ${orders} (id, at) VALUES ($1, $2)`, [`o-${n}`, Date.now()]);
  await tidings.notifications.send(
    { recipient: `user-${n % RECIPIENTS}`, title: `Order o-${n}` },
    { transaction: client, idempotencyKey: `o-${n}` },
  );
  await client.query('COMMIT');
}
/** One order in its own transaction, then its notification as POST /v1/notifications. */
async function overHttp(client) {
  const n = sequence++;
  await client.query(`INSERT INTO ${orders} (id, at) VALUES ($1, $2)`, [`o-${n}`, Date.now()]);
  const response = await tidings.fetch(
    new Request('http://tidings.bench/v1/notifications', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `o-${n}` },
      body: JSON.stringify({ recipient: `user-${n % RECIPIENTS}`, title: `Order o-${n}` }),
    }),
    { clientAddress: '127.0.0.1' },
  );
  if (response.status !== 201) throw new Error(`POST /v1/notifications answered ${response.status}`);
}

async function measure(sendOne, seconds) {
  const cpu = process.cpuUsage();
  const postgresBefore = cpuMsOfCommand('postgres');
  const started = performance.now();
  const end = started + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const client = await app.connect();
      try {
        while (performance.now() < end) {
          await sendOne(client);
          done++;
        }
      } finally {
        client.release();
      }
    }),
  );
  // What the commits' signals cost the instance is counted with the sends that made them.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const used = process.cpuUsage(cpu);
  const elapsed = (performance.now() - started) / 1000;
  return {
    cpuMsPerSend: (used.user + used.system) / 1000 / done,
    postgresMsPerSend: (cpuMsOfCommand('postgres') - postgresBefore) / done,
    perSecond: done / elapsed,
  };
}

const ms = (value) => `${value.toFixed(3)} ms`;
try {
  const seconds = settings.duration;
  console.log(
    `tx-send: ${CONNECTIONS} connections, ${RECIPIENTS} recipients with one browser each, ${seconds} s per run`,
  );
  await measure(inTransaction, 1);
  await measure(overHttp, 1);
  const subject = [];
  const baseline = [];
  for (let round = 0; round < settings.rounds; round++) {
    subject.push(await measure(inTransaction, seconds));
    baseline.push(await measure(overHttp, seconds));
  }
  const median = (runs, field) => lowerMedian(runs.map((run) => run[field]));
  report(
    row({
      benchmark: 'CPU per send in the application transaction (postgres, this process)',
      figure: median(subject, 'cpuMsPerSend'),
      figureText: ms(median(subject, 'cpuMsPerSend')),
      baseline: median(baseline, 'cpuMsPerSend'),
      baselineText: ms(median(baseline, 'cpuMsPerSend')),
      baselineName: 'POST /v1/notifications in process',
      unit: 'ms',
      target: null,
      note: `sends/s ${subject.map((run) => formatCount(run.perSecond)).join(', ')} vs ${baseline
        .map((run) => formatCount(run.perSecond))
        .join(', ')}; postgres CPU per send ${subject.map((run) => ms(run.postgresMsPerSend)).join(', ')} vs ${baseline
        .map((run) => ms(run.postgresMsPerSend))
        .join(', ')}`,
    }),
  );
} finally {
  await tidings.close();
  await store.close();
  await app.query(`DROP SCHEMA IF EXISTS "${schema}_app" CASCADE`);
  await app.end();
  await cleanup();
}
