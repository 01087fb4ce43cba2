// ceiling: how much work per request a handler can do and still reach a given share of the bare
// Hono baseline on this machine. The bare read baseline is measured as in send-read.js, then the
// same app with W µs of synchronous work in its handler (servers/bare-hono-busy.js), for several
// W, alternating rounds; each row is that app's req/s against the bare app's. Tidings' own
// in-process work per read and per send (bench/core.js) can be set against these rows: a
// handler that needs more than the W of the last row still at ≥ 0.6× cannot read at 0.6×.
//
// Run after `npm run build`: node bench/ceiling.js (or `node bench/run.js ceiling`).
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  benchDir,
  cleanup,
  envNumber,
  formatCount,
  lowerMedian,
  report,
  row,
  settings,
  startServer,
} from './lib/common.js';

const WORK_US = (process.env.BENCH_CEILING_US ?? '10,20,40,80')
  .split(',')
  .map(Number)
  .filter((n) => Number.isFinite(n) && n > 0);
const duration = envNumber('BENCH_CEILING_DURATION', 3);

async function rps(url) {
  const result = await autocannon({ url, connections: settings.connections, duration });
  const good = result.statusCodeStats['200']?.count ?? 0;
  return good / ((result.finish - result.start) / 1000);
}

try {
  console.log(
    `ceiling: bare Hono GET with W µs of synchronous work per request vs without; ${settings.rounds} × ${duration} s runs each, alternating; medians`,
  );
  const path = '/v1/notifications/ntf_1';
  const bare = await startServer('bare hono', join(benchDir, 'servers/bare-hono.js'), []);
  const busy = [];
  for (const us of WORK_US) {
    busy.push({
      us,
      server: await startServer(`bare hono +${us} µs`, join(benchDir, 'servers/bare-hono-busy.js'), [String(us)]),
    });
  }
  await rps(`${bare.url}${path}`);
  const bareRuns = [];
  const busyRuns = new Map(WORK_US.map((us) => [us, []]));
  for (let round = 0; round < settings.rounds; round++) {
    bareRuns.push(await rps(`${bare.url}${path}`));
    for (const { us, server } of busy) busyRuns.get(us).push(await rps(`${server.url}${path}`));
  }
  const base = lowerMedian(bareRuns);
  for (const us of WORK_US) {
    const figure = lowerMedian(busyRuns.get(us));
    report(
      row({
        benchmark: `ceiling: bare Hono read + ${us} µs of work`,
        figure,
        figureText: `${formatCount(figure)} req/s`,
        baseline: base,
        baselineText: `${formatCount(base)} req/s`,
        baselineName: 'bare hono',
        unit: 'req/s',
        target: null,
        note: `runs ${busyRuns.get(us).map(formatCount).join(', ')} vs ${bareRuns.map(formatCount).join(', ')} req/s`,
      }),
    );
  }
} finally {
  await cleanup();
}
