// What planning the group's recording statement costs PostgreSQL: sends through the PostgreSQL
// store itself to BENCH_GROUPS_RECIPIENTS (20,000) recipients with one browser each, issued two
// at a time every 2 ms (1,000 a second), so that the store records them in groups, for
// BENCH_GROUPS_SECONDS (10) a turn after 2 s unmeasured. Prints PostgreSQL's CPU time per send
// (every `postgres` process of the machine, so run it against a server of this machine with
// nothing else on it), this process's, and each send's time to its answer.
//
// Figure: a schema whose `browsers` table PostgreSQL has analyzed at its 20,000 rows, so the
// group's statement keeps its plan (packages/store-postgres/README.md, _Plans_). Baseline: the
// same on a schema whose table was never analyzed (autovacuum off for it), so the statement is
// planned at every run, as it is while a deployment is young. Alternating over BENCH_ROUNDS
// rounds; the median counts. With pg_stat_statements loaded, the group statement's runs, plans
// and planning time are printed too.
//
// Run after `npm run build`: node bench/postgres-groups.js (BENCH_POSTGRES_URL)
import { newId } from '@tidings/core';
import { createPostgresStore } from '@tidings/store-postgres';
import pg from 'pg';
import {
  cleanup,
  cpuMsOfCommand,
  envNumber,
  formatCount,
  lowerMedian,
  percentile,
  report,
  row,
  settings,
  sleep,
} from './lib/common.js';
import { benchPostgresUrl, notificationInput, postgresBenchDb, storeProject } from './lib/setup.js';

const RECIPIENTS = Math.max(1_000, Math.round(envNumber('BENCH_GROUPS_RECIPIENTS', 20_000)));
const SECONDS = envNumber('BENCH_GROUPS_SECONDS', 10);
const TICK_MS = 2;
const PER_TICK = 2;

/** A store on a schema of its own with RECIPIENTS browsers; `analyzed` or never analyzed. */
async function open(admin, analyzed) {
  const url = postgresBenchDb();
  const schema = new URL(url).searchParams.get('schema');
  const store = await createPostgresStore({ connectionString: url, maxConnections: 8 });
  const browsers = `"${schema}".browsers`;
  if (!analyzed) await admin.query(`ALTER TABLE ${browsers} SET (autovacuum_enabled = false)`);
  const now = Date.now();
  const projectId = await storeProject(store, now);
  for (let from = 0; from < RECIPIENTS; from += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, RECIPIENTS - from) }, (_, i) =>
        store.registerBrowser({ id: newId('brw'), projectId, recipient: `user-${from + i}`, secretHash: 'x', now }),
      ),
    );
  }
  if (analyzed) await admin.query(`ANALYZE ${browsers}`);
  const [{ reltuples }] = (await admin.query('SELECT reltuples FROM pg_class WHERE oid = to_regclass($1)', [browsers]))
    .rows;
  // 1,000: the count at which the store keeps the group's plan (keptPlanReady in its db.ts).
  if (analyzed !== reltuples >= 1_000) throw new Error(`${browsers}: statistics count ${reltuples} rows`);
  return { store, projectId };
}

/** Sends for `seconds`; their answers' times in ms. */
async function sends({ store, projectId }, seconds) {
  const answers = [];
  const pending = [];
  const start = performance.now();
  for (let tick = 1; performance.now() - start < seconds * 1000; tick++) {
    for (let i = 0; i < PER_TICK; i++) {
      const issued = performance.now();
      const recipient = `user-${Math.floor(Math.random() * RECIPIENTS)}`;
      pending.push(
        store.createNotification(notificationInput({ projectId, recipient, title: 'Groups' })).then((result) => {
          if (result.kind !== 'created') throw new Error(result.kind);
          answers.push(performance.now() - issued);
        }),
      );
    }
    const wait = start + tick * TICK_MS - performance.now();
    if (wait > 0) await sleep(wait);
  }
  await Promise.all(pending);
  return answers.sort((a, b) => a - b);
}

/** The group statement's runs, plans and planning ms since the last reset, or null without pg_stat_statements. */
async function groupStatement(admin) {
  try {
    const { rows } = await admin.query(
      `SELECT sum(calls)::int8 AS calls, sum(plans)::int8 AS plans, sum(total_plan_time) AS plan_ms
         FROM pg_stat_statements WHERE query LIKE '%AS i(ord, position, attempt_id)%'`,
    );
    return { calls: Number(rows[0].calls), plans: Number(rows[0].plans), planMs: Number(rows[0].plan_ms) };
  } catch {
    return null;
  }
}

async function measure(admin, subject) {
  await sends(subject, 2);
  await admin.query('SELECT pg_stat_statements_reset()').catch(() => {});
  const postgresBefore = cpuMsOfCommand('postgres');
  const cpuBefore = process.cpuUsage();
  const answers = await sends(subject, SECONDS);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    postgres: (cpuMsOfCommand('postgres') - postgresBefore) / answers.length,
    node: (cpu.user + cpu.system) / 1000 / answers.length,
    p50: percentile(answers, 50),
    p99: percentile(answers, 99),
    statement: await groupStatement(admin),
  };
}

const admin = new pg.Client({ connectionString: benchPostgresUrl });
await admin.connect();
const stores = [];
try {
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => {});
  console.log(
    `postgres groups: ${formatCount(RECIPIENTS)} recipients, ${formatCount((PER_TICK * 1000) / TICK_MS)} sends/s ` +
      `for ${SECONDS} s, ${settings.rounds} rounds`,
  );
  const kept = await open(admin, true);
  stores.push(kept.store);
  const planned = await open(admin, false);
  stores.push(planned.store);
  const keptRuns = [];
  const plannedRuns = [];
  for (let round = 0; round < settings.rounds; round++) {
    keptRuns.push(await measure(admin, kept));
    plannedRuns.push(await measure(admin, planned));
  }
  const median = (runs, field) => lowerMedian(runs.map((run) => run[field]));
  const statement = (runs) => {
    const last = runs.at(-1).statement;
    return last
      ? `${formatCount(last.calls)} groups, ${formatCount(last.plans)} planned in ${last.planMs.toFixed(0)} ms`
      : 'no pg_stat_statements';
  };
  report(
    row({
      benchmark: 'postgres store, PostgreSQL CPU per send in groups with the group plan kept',
      figure: median(keptRuns, 'postgres'),
      figureText: `${median(keptRuns, 'postgres').toFixed(3)} ms`,
      baseline: median(plannedRuns, 'postgres'),
      baselineText: `${median(plannedRuns, 'postgres').toFixed(3)} ms`,
      baselineName: 'planned at every run',
      unit: 'ms',
      target: null,
      note:
        `runs ${keptRuns.map((run) => run.postgres.toFixed(3)).join(', ')} against ` +
        `${plannedRuns.map((run) => run.postgres.toFixed(3)).join(', ')} ms; this process ` +
        `${median(keptRuns, 'node').toFixed(3)} against ${median(plannedRuns, 'node').toFixed(3)} ms per send; ` +
        `answer p50/p99 ${median(keptRuns, 'p50').toFixed(2)}/${median(keptRuns, 'p99').toFixed(2)} against ` +
        `${median(plannedRuns, 'p50').toFixed(2)}/${median(plannedRuns, 'p99').toFixed(2)} ms; ` +
        `last round: ${statement(keptRuns)} against ${statement(plannedRuns)}`,
    }),
  );
} finally {
  for (const store of stores) await store.close();
  await admin.end();
  await cleanup();
}
