// A send through the application's own transaction (docs/transactions.md) against the same send
// as `POST /v1/notifications`, on PostgreSQL and on SQLite, in one run: this process's CPU time
// per send, and the time from the commit to the notification's event on the recipient's open
// stream (p50 and p99).
//
// Subject, PostgreSQL: `BEGIN`, an INSERT of the application's own,
// `tidings.notifications.send(input, { transaction: client, idempotencyKey })`, `COMMIT`.
// Subject, SQLite: `tidings.notifications.prepare(input, { idempotencyKey })`, then one
// better-sqlite3 transaction on the store's file with the application's INSERT and `sendSync`.
// Baseline, both: the application's INSERT in a transaction of its own, then the send as a request
// to `tidings.fetch` with an API key and an Idempotency-Key (the route's key check, limits, body
// parsing and answer; no socket). "Commit" is when COMMIT returned (the transaction ended) for the
// subject, when the 201 came back for the baseline. Both run from WORKERS workers at once, to
// RECIPIENTS recipients with one browser each whose event stream is open in this process (read
// through `tidings.fetch`), so what a commit costs the instance (hearing of it, the stream's
// catch-up and write) is counted with the sends. Each worker yields to the event loop after each
// send, as sends made by requests do. PostgreSQL's own CPU is printed too (every
// `postgres` process of the machine: meaningful only on a server with nothing else).
//
// Run after `npm run build`: node bench/tx-send.js (BENCH_POSTGRES_URL, BENCH_DURATION, BENCH_ROUNDS).
import { join } from 'node:path';
import { createTidings, silentLogger } from '@tidings/core';
import { createPostgresStore } from '@tidings/store-postgres';
import { createSqliteStore } from '@tidings/store-sqlite';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  cleanup,
  cpuMsOfCommand,
  formatCount,
  highLimits,
  lowerMedian,
  percentile,
  report,
  row,
  settings,
  tempDir,
} from './lib/common.js';
import { benchPostgresUrl, postgresBenchDb } from './lib/setup.js';

const WORKERS = 8;
const RECIPIENTS = 64;

/**
 * When each order's send was committed (or answered) and its event not yet seen, when each event
 * was seen before its commit returned here (the listening instance can hear of a commit before the
 * application's connection reads COMMIT's answer: a latency of 0), and the latencies.
 */
const committedAt = new Map();
const arrivedAt = new Map();
let latencies = [];

/** Records that the send of order `id` committed (or was answered) now. */
function committed(id) {
  const now = performance.now();
  const arrived = arrivedAt.get(id);
  if (arrived === undefined) committedAt.set(id, now);
  else {
    arrivedAt.delete(id);
    latencies.push(Math.max(0, arrived - now));
  }
}

/** Opens the stream of a browser of `recipient` in process and records each order's arrival. */
async function openStream(tidings, recipient) {
  const { token } = await tidings.createConnectToken({ recipient });
  const response = await tidings.fetch(new Request(`http://tidings.bench/v1/connect/${token}`));
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let ready;
  const isReady = new Promise((resolve) => (ready = resolve));
  let pending = '';
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const now = performance.now();
      pending += decoder.decode(value, { stream: true });
      if (pending.includes('event: ready')) ready();
      for (const match of pending.matchAll(/"title":"Order (o-\d+)"/g)) {
        const at = committedAt.get(match[1]);
        if (at === undefined) arrivedAt.set(match[1], now);
        else {
          committedAt.delete(match[1]);
          latencies.push(now - at);
        }
      }
      pending = pending.slice(pending.lastIndexOf('\n') + 1);
    }
  })().catch(() => {});
  await isReady;
  return reader;
}

/** Tidings over `store` with a project, a key and RECIPIENTS open streams. */
async function instance(store) {
  const tidings = createTidings({
    store,
    project: 'bench-app',
    logger: silentLogger,
    sweepIntervalMs: 0,
    limits: highLimits,
  });
  const project = await tidings.project();
  const key = (await tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key;
  const readers = [];
  for (let i = 0; i < RECIPIENTS; i++) readers.push(await openStream(tidings, `user-${i}`));
  return { tidings, key, readers };
}

let sequence = 0;
const order = () => {
  const n = sequence++;
  return { id: `o-${n}`, input: { recipient: `user-${n % RECIPIENTS}`, title: `Order o-${n}` } };
};

/** The send as POST /v1/notifications, after the application's INSERT of `id` on its own. */
async function postSend(tidings, key, id, input) {
  const response = await tidings.fetch(
    new Request('http://tidings.bench/v1/notifications', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': id },
      body: JSON.stringify(input),
    }),
    { clientAddress: '127.0.0.1' },
  );
  if (response.status !== 201) throw new Error(`POST /v1/notifications answered ${response.status}`);
  committed(id);
}

async function postgresSubject() {
  const connectionString = postgresBenchDb();
  const schema = new URL(connectionString).searchParams.get('schema');
  const store = await createPostgresStore({ connectionString, maxConnections: WORKERS + 2 });
  const { tidings, key, readers } = await instance(store);
  const app = new pg.Pool({ connectionString: benchPostgresUrl, max: WORKERS });
  const orders = `"${schema}_app".orders`;
  await app.query(`CREATE SCHEMA "${schema}_app"`);
  await app.query(`CREATE TABLE ${orders} (id text PRIMARY KEY, at int8 NOT NULL)`);
  const clients = await Promise.all(Array.from({ length: WORKERS }, () => app.connect()));
  const insert = (client, id) => client.query(`INSERT INTO ${orders} (id, at) VALUES ($1, $2)`, [id, Date.now()]);
  return {
    store: 'postgres',
    async inTransaction(worker) {
      const client = clients[worker];
      const { id, input } = order();
      await client.query('BEGIN');
      await insert(client, id);
      await tidings.notifications.send(input, { transaction: client, idempotencyKey: id });
      await client.query('COMMIT');
      committed(id);
    },
    async overHttp(worker) {
      const { id, input } = order();
      await insert(clients[worker], id);
      await postSend(tidings, key, id, input);
    },
    async close() {
      for (const reader of readers) await reader.cancel().catch(() => {});
      await tidings.close();
      await store.close();
      for (const client of clients) client.release();
      await app.query(`DROP SCHEMA IF EXISTS "${schema}_app" CASCADE`);
      await app.end();
    },
  };
}

async function sqliteSubject() {
  const path = join(tempDir('tx-send'), 'tidings.db');
  const store = createSqliteStore({ path });
  const { tidings, key, readers } = await instance(store);
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE orders (id text PRIMARY KEY, at integer NOT NULL)');
  const insert = db.prepare('INSERT INTO orders (id, at) VALUES (?, ?)');
  return {
    store: 'sqlite',
    async inTransaction() {
      const { id, input } = order();
      const prepared = await tidings.notifications.prepare(input, { idempotencyKey: id });
      db.transaction(() => {
        insert.run(id, Date.now());
        tidings.notifications.sendSync(prepared, { transaction: db });
      })();
      committed(id);
    },
    async overHttp() {
      const { id, input } = order();
      insert.run(id, Date.now());
      await postSend(tidings, key, id, input);
    },
    async close() {
      for (const reader of readers) await reader.cancel().catch(() => {});
      await tidings.close();
      db.close();
      store.close();
    },
  };
}

async function measure(sendOne, seconds, withPostgres) {
  latencies = [];
  committedAt.clear();
  arrivedAt.clear();
  const cpu = process.cpuUsage();
  const postgresBefore = withPostgres ? cpuMsOfCommand('postgres') : 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, worker) => {
      while (performance.now() < end) {
        await sendOne(worker);
        done++;
        // Each send as its own request would come: from an I/O callback, in a turn of its own. A
        // loop of sends that never leaves the microtask queue would starve every I/O of the
        // process, the flush to disk that a delivery waits for included.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }),
  );
  // The last events, and what they cost, are counted with the sends that made them.
  for (let waited = 0; committedAt.size > 0 && waited < 5000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const used = process.cpuUsage(cpu);
  const elapsed = (performance.now() - started) / 1000;
  const sorted = latencies.toSorted((a, b) => a - b);
  return {
    cpuMsPerSend: (used.user + used.system) / 1000 / done,
    postgresMsPerSend: withPostgres ? (cpuMsOfCommand('postgres') - postgresBefore) / done : null,
    perSecond: done / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    missing: committedAt.size,
  };
}

const ms = (value) => `${value.toFixed(3)} ms`;
const median = (runs, field) => lowerMedian(runs.map((run) => run[field]));
const list = (runs, format) => runs.map(format).join(', ');

try {
  const seconds = settings.duration;
  console.log(
    `tx-send: ${WORKERS} workers, ${RECIPIENTS} recipients with one open stream each, ${seconds} s per run, ${settings.rounds} rounds`,
  );
  for (const open of [postgresSubject, sqliteSubject]) {
    const subject = await open();
    const withPostgres = subject.store === 'postgres';
    try {
      await measure(subject.inTransaction, 1, withPostgres);
      await measure(subject.overHttp, 1, withPostgres);
      const inTx = [];
      const http = [];
      for (let round = 0; round < settings.rounds; round++) {
        inTx.push(await measure(subject.inTransaction, seconds, withPostgres));
        http.push(await measure(subject.overHttp, seconds, withPostgres));
      }
      const lost = [...inTx, ...http].reduce((sum, run) => sum + run.missing, 0);
      if (lost > 0) throw new Error(`${lost} sends never reached their stream`);
      const postgresNote = withPostgres
        ? `; postgres CPU per send ${list(inTx, (run) => ms(run.postgresMsPerSend))} vs ${list(http, (run) => ms(run.postgresMsPerSend))}`
        : '';
      /** A row of the medians of `field`: the subject's runs against the baseline's. */
      const compared = (benchmark, field, baselineName, note) =>
        report(
          row({
            benchmark,
            figure: median(inTx, field),
            figureText: ms(median(inTx, field)),
            baseline: median(http, field),
            baselineText: ms(median(http, field)),
            baselineName,
            unit: 'ms',
            target: null,
            note,
          }),
        );
      compared(
        `CPU per send in the application transaction (${subject.store}, this process)`,
        'cpuMsPerSend',
        'POST /v1/notifications in process',
        `sends/s ${list(inTx, (run) => formatCount(run.perSecond))} vs ${list(http, (run) => formatCount(run.perSecond))}${postgresNote}`,
      );
      compared(
        `commit → event p99 (${subject.store})`,
        'p99',
        '201 → event p99 of POST /v1/notifications',
        `p50 ${list(inTx, (run) => ms(run.p50))} vs ${list(http, (run) => ms(run.p50))}`,
      );
    } finally {
      await subject.close();
    }
  }
} finally {
  await cleanup();
}
