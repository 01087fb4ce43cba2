// What an attempt costs the PostgreSQL store, and what its layout saves: sends through the store
// itself (`createNotification`, then `markAttemptsSent` for what a stream wrote, every 20 ms as
// streams do, then a `displayed` receipt for one attempt in ten) to BENCH_PG_ATTEMPTS_RECIPIENTS
// (1,800) recipients × 10 browsers, BENCH_PG_ATTEMPTS_IN_FLIGHT (10) sends in flight, for
// BENCH_PG_ATTEMPTS_SENDS (3,000) sends a turn after as many unmeasured. Prints, per attempt,
// the WAL PostgreSQL wrote (`pg_current_wal_lsn()`, so run it with nothing else writing to the
// server), PostgreSQL's CPU time (every `postgres` process of the machine), and the share of the
// attempts' updates that were heap-only (no index entry written).
//
// Figure: the schema as shipped (schema step 16: no unique index on (browser_id, seq), new pages
// filled to half). Baseline: the same schema with the layout before step 16 put back (the unique
// index, pages filled whole). Fresh schemas, alternating over BENCH_ROUNDS rounds; the median
// counts.
//
// Run after `npm run build`: node bench/postgres-attempts.js (BENCH_POSTGRES_URL)
import { newId } from '@tidings/core';
import { createPostgresStore } from '@tidings/store-postgres';
import pg from 'pg';
import {
  cleanup,
  cpuMsOfCommand,
  envNumber,
  formatCount,
  lowerMedian,
  report,
  row,
  settings,
  sleep,
} from './lib/common.js';
import { benchPostgresUrl, notificationInput, postgresBenchDb, storeProject } from './lib/setup.js';

const RECIPIENTS = Math.max(1, Math.round(envNumber('BENCH_PG_ATTEMPTS_RECIPIENTS', 1800)));
const BROWSERS = 10;
const SENDS = Math.max(100, Math.round(envNumber('BENCH_PG_ATTEMPTS_SENDS', 3_000)));
const IN_FLIGHT = Math.max(1, Math.round(envNumber('BENCH_PG_ATTEMPTS_IN_FLIGHT', 10)));

const walBytes = async (admin) =>
  Number((await admin.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::int8 AS at")).rows[0].at);

/** The attempts table's updates, and how many of them were heap-only, as the statistics have them. */
async function updates(admin, table) {
  // Backends report their counts at most once a second.
  await sleep(1_200);
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query(
    'SELECT n_tup_upd::int8 AS updated, n_tup_hot_upd::int8 AS hot FROM pg_stat_user_tables WHERE relid = to_regclass($1)',
    [table],
  );
  return { updated: Number(rows[0].updated), hot: Number(rows[0].hot) };
}

async function measure(admin, asBefore) {
  const url = postgresBenchDb();
  const schema = new URL(url).searchParams.get('schema');
  const store = await createPostgresStore({ connectionString: url, maxConnections: 8 });
  const attempts = `"${schema}".attempts`;
  if (asBefore) {
    await admin.query(`ALTER TABLE ${attempts} ADD CONSTRAINT attempts_browser_id_seq_key UNIQUE (browser_id, seq)`);
    await admin.query(`ALTER TABLE ${attempts} SET (fillfactor = 100)`);
  }
  try {
    const now = Date.now();
    const projectId = await storeProject(store, now);
    const browsers = [];
    for (let from = 0; from < RECIPIENTS * BROWSERS; from += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, RECIPIENTS * BROWSERS - from) }, async (_, i) => {
          const id = newId('brw');
          await store.registerBrowser({
            id,
            projectId,
            recipient: `user-${Math.floor((from + i) / BROWSERS)}`,
            secretHash: 'x',
            now,
          });
          browsers.push(id);
        }),
      );
    }
    let sent = [];
    const markSent = async () => {
      const written = sent;
      sent = [];
      if (written.length === 0) return;
      await store.markAttemptsSent({ attemptIds: written.map((a) => a.id), now: Date.now(), via: 'stream' });
      // One attempt in ten is displayed: a receipt that changes no indexed column either.
      await Promise.all(
        written
          .filter((_, i) => i % 10 === 0)
          .map((a) =>
            store.applyReceipts({
              browserId: a.browserId,
              receipts: [{ type: 'displayed', attemptId: a.id, at: Date.now() }],
              now: Date.now(),
            }),
          ),
      );
    };
    const send = async (index) => {
      const result = await store.createNotification(
        notificationInput({ projectId, recipient: `user-${index % RECIPIENTS}`, title: 'Attempts', at: Date.now() }),
      );
      if (result.kind !== 'created') throw new Error(result.kind);
      sent.push(...result.created.attempts);
      return result.created.attempts.length;
    };
    const pass = async () => {
      let next = 0;
      let made = 0;
      let marking = Promise.resolve();
      const timer = setInterval(() => {
        marking = marking.then(markSent);
      }, 20);
      try {
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (next < SENDS) {
              const count = await send(next++);
              made += count;
            }
          }),
        );
      } finally {
        clearInterval(timer);
      }
      await marking;
      await markSent();
      return made;
    };
    await pass();
    const before = { wal: await walBytes(admin), cpu: cpuMsOfCommand('postgres'), ...(await updates(admin, attempts)) };
    const made = await pass();
    const cpuMs = cpuMsOfCommand('postgres') - before.cpu;
    const wal = (await walBytes(admin)) - before.wal;
    const after = await updates(admin, attempts);
    const updated = after.updated - before.updated;
    return {
      walPerAttempt: wal / made,
      cpuPerAttempt: (cpuMs * 1000) / made,
      hotShare: updated === 0 ? 0 : (after.hot - before.hot) / updated,
    };
  } finally {
    await store.close();
  }
}

const admin = new pg.Client({ connectionString: benchPostgresUrl });
await admin.connect();
try {
  console.log(
    `postgres attempts: ${formatCount(SENDS)} sends to ${formatCount(RECIPIENTS)} recipients × ${BROWSERS} browsers, ` +
      `${IN_FLIGHT} in flight, ${settings.rounds} rounds`,
  );
  const shipped = [];
  const before = [];
  for (let round = 0; round < settings.rounds; round++) {
    shipped.push(await measure(admin, false));
    before.push(await measure(admin, true));
  }
  const median = (runs, key) => lowerMedian(runs.map((r) => r[key]));
  const runs = (list, key, digits) => list.map((r) => r[key].toFixed(digits)).join(', ');
  report(
    row({
      benchmark: 'postgres store, WAL written per attempt',
      figure: median(shipped, 'walPerAttempt'),
      figureText: `${formatCount(median(shipped, 'walPerAttempt'))} B`,
      baseline: median(before, 'walPerAttempt'),
      baselineText: `${formatCount(median(before, 'walPerAttempt'))} B`,
      baselineName: 'the layout before step 16',
      unit: 'B',
      target: null,
      note: `runs ${runs(shipped, 'walPerAttempt', 0)} against ${runs(before, 'walPerAttempt', 0)} B`,
    }),
  );
  report(
    row({
      benchmark: 'postgres store, PostgreSQL CPU per attempt',
      figure: median(shipped, 'cpuPerAttempt'),
      figureText: `${median(shipped, 'cpuPerAttempt').toFixed(1)} µs`,
      baseline: median(before, 'cpuPerAttempt'),
      baselineText: `${median(before, 'cpuPerAttempt').toFixed(1)} µs`,
      baselineName: 'the layout before step 16',
      unit: 'µs',
      target: null,
      note:
        `heap-only updates ${(median(shipped, 'hotShare') * 100).toFixed(0)}% against ` +
        `${(median(before, 'hotShare') * 100).toFixed(0)}%; runs ${runs(shipped, 'cpuPerAttempt', 1)} against ` +
        `${runs(before, 'cpuPerAttempt', 1)} µs`,
    }),
  );
} finally {
  await admin.end();
  await cleanup();
}
