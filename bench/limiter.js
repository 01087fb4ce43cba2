// Three-scope consume throughput: Tidings' exact sliding log against rate-limiter-flexible's
// RateLimiterMemory (a fixed window) doing the same key + project + account checks.
// Run after `npm run build`: node bench/limiter.js (bench/run.js runs it as part of `npm run bench`).
// Prints figures only; it gates nothing (bench/README.md: benchmarks are not tests).
import { createMemoryLimiter } from '@tidings/core';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { formatCount, report, row } from './lib/common.js';

const KEYS = 5_000;
const PROJECTS = 500;
const ACCOUNTS = 50;
const REQUESTS_PER_KEY = 60;
const ROUNDS = 5;
const WINDOW_MS = 60_000;

// "admitted": limits roomy enough that every request of a round passes, the common case.
// "the server's limits" (docs/api.md#limits): 60 / 300 / 600, so most requests of a round are refused.
const scenarios = [
  { name: 'admitted', limits: { key: 100, project: 1_000, account: 10_000 } },
  { name: "the server's limits", limits: { key: 60, project: 300, account: 600 } },
];

function workload(limits, round) {
  // Fresh ids each round, so that every round starts from empty limiters of the same size.
  const requests = [];
  for (let i = 0; i < KEYS; i++) {
    const project = i % PROJECTS;
    const ids = [`key:${round}:${i}`, `project:${round}:${project}`, `account:${round}:${project % ACCOUNTS}`];
    requests.push({
      ids,
      scopes: [
        { name: 'key', id: ids[0], limit: limits.key, windowMs: WINDOW_MS },
        { name: 'project', id: ids[1], limit: limits.project, windowMs: WINDOW_MS },
        { name: 'account', id: ids[2], limit: limits.account, windowMs: WINDOW_MS },
      ],
    });
  }
  return requests;
}

async function runTidings(limits, round) {
  const limiter = createMemoryLimiter();
  const requests = workload(limits, round);
  let allowed = 0;
  const start = performance.now();
  for (let r = 0; r < REQUESTS_PER_KEY; r++) {
    for (const request of requests) {
      const decision = await limiter.consume(request.scopes, Date.now());
      if (decision.allowed) allowed++;
    }
  }
  const seconds = (performance.now() - start) / 1000;
  await limiter.close();
  return { opsPerSecond: (KEYS * REQUESTS_PER_KEY) / seconds, allowed };
}

async function runFlexible(limits, round) {
  const duration = WINDOW_MS / 1000;
  const byKey = new RateLimiterMemory({ keyPrefix: 'key', points: limits.key, duration });
  const byProject = new RateLimiterMemory({ keyPrefix: 'project', points: limits.project, duration });
  const byAccount = new RateLimiterMemory({ keyPrefix: 'account', points: limits.account, duration });
  const requests = workload(limits, round);
  let allowed = 0;
  const pass = () => true;
  const fail = () => false;
  const start = performance.now();
  for (let r = 0; r < REQUESTS_PER_KEY; r++) {
    for (const { ids } of requests) {
      // Its closest to a union over different keys; like RateLimiterUnion it consumes in every
      // limiter even when one refuses (rate-limiter-flexible issue #280).
      const ok = await Promise.all([byKey.consume(ids[0]), byProject.consume(ids[1]), byAccount.consume(ids[2])]).then(
        pass,
        fail,
      );
      if (ok) allowed++;
    }
  }
  const seconds = (performance.now() - start) / 1000;
  return { opsPerSecond: (KEYS * REQUESTS_PER_KEY) / seconds, allowed };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

// On a busy machine the best round is the one least disturbed by other work.
const best = (values) => Math.max(...values);

const format = (n) => Math.round(n).toLocaleString('en-US');

console.log(
  `${KEYS} keys, ${PROJECTS} projects, ${ACCOUNTS} accounts; ${KEYS * REQUESTS_PER_KEY} three-scope consumes per round; median and best of ${ROUNDS} rounds after one warm-up`,
);
for (const [index, scenario] of scenarios.entries()) {
  const tidings = [];
  const flexible = [];
  let allowedTidings = 0;
  let allowedFlexible = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const id = `${index}-${round}`;
    // Alternate which runs first, so that neither always inherits the other's garbage.
    const a = round % 2 === 0 ? await runTidings(scenario.limits, id) : null;
    const b = await runFlexible(scenario.limits, id);
    const c = a ?? (await runTidings(scenario.limits, id));
    if (round === 0) continue;
    tidings.push(c.opsPerSecond);
    flexible.push(b.opsPerSecond);
    allowedTidings = c.allowed;
    allowedFlexible = b.allowed;
  }
  const line = (label, values) =>
    `  ${label.padEnd(34)} ${format(median(values)).padStart(12)} ops/s median ${format(best(values)).padStart(12)} best`;
  console.log(
    `\n${scenario.name} (key ${scenario.limits.key}, project ${scenario.limits.project}, account ${scenario.limits.account} per 60 s)`,
  );
  console.log(`${line('tidings createMemoryLimiter', tidings)}  (${format(allowedTidings)} admitted)`);
  console.log(`${line('rate-limiter-flexible Memory x3', flexible)}  (${format(allowedFlexible)} admitted)`);
  const ratio = (x) => `${x.toFixed(2)}x`;
  console.log(
    `  ${'ratio'.padEnd(34)} ${ratio(median(tidings) / median(flexible)).padStart(12)} median ${ratio(best(tidings) / best(flexible)).padStart(12)} best`,
  ); // One row of the `npm run bench` table per scenario: medians, and the three-scope target.
  report(
    row({
      benchmark: `limiter three-scope consume (${scenario.name})`,
      figure: median(tidings),
      figureText: `${formatCount(median(tidings))} ops/s`,
      baseline: median(flexible),
      baselineText: `${formatCount(median(flexible))} ops/s`,
      baselineName: 'rate-limiter-flexible Memory ×3',
      unit: 'ops/s',
      target: { op: '>=', value: 3 },
      note: `median of ${ROUNDS} rounds; best ${ratio(best(tidings) / best(flexible))}; ${format(allowedTidings)} vs ${format(allowedFlexible)} admitted per round`,
    }),
  );
}
