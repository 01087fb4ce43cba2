// Usage counting on PostgreSQL: live sends of ONE project from many connections at once, to
// distinct recipients (so that no browser's row is shared), through the store itself. Every live
// send adds to its project's usage of the day; counted in one row, each send holds that row's
// lock until its commit, and the sends of a project queue there. The store counts in shards
// (`usageShards`, a shard per connection) and adds them up on read. Baseline: the same store with
// one shard, the single hot row, in the same run.
//
// Run after `npm run build`: node bench/postgres-usage.js (BENCH_POSTGRES_URL, BENCH_DURATION).
import { newId } from '@tidings/core';
import { createPostgresStore } from '@tidings/store-postgres';
import { cleanup, formatCount, lowerMedian, report, row, settings } from './lib/common.js';
import { notificationInput, postgresBenchDb, storeProject } from './lib/setup.js';

const CONNECTIONS = 16;
const RECIPIENTS = 64;

async function measure(usageShards, seconds) {
  const store = await createPostgresStore({
    connectionString: postgresBenchDb(),
    maxConnections: CONNECTIONS,
    usageShards,
  });
  try {
    const now = Date.now();
    const projectId = await storeProject(store, now);
    for (let i = 0; i < RECIPIENTS; i++) {
      await store.registerBrowser({ id: newId('brw'), projectId, recipient: `user-${i}`, secretHash: 'x', now });
    }
    const send = (index) =>
      store.createNotification(
        notificationInput({ projectId, recipient: `user-${index % RECIPIENTS}`, title: 'Usage', at: now }),
      );
    let next = 0;
    let done = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          await send(next++);
          done++;
        }
      }),
    );
    const elapsed = (performance.now() - (end - seconds * 1000)) / 1000;
    const day = new Date(now).toISOString().slice(0, 10);
    const [usage] = await store.getUsage({ projectId, fromDay: day, toDay: day });
    if (usage?.notifications !== done) throw new Error(`usage counted ${usage?.notifications} of ${done} sends`);
    return done / elapsed;
  } finally {
    await store.close();
  }
}

try {
  const seconds = settings.duration;
  console.log(
    `postgres usage: ${CONNECTIONS} connections, one project, ${RECIPIENTS} recipients, ${seconds} s per run`,
  );
  await measure(1, 1);
  await measure(16, 1);
  const hot = [];
  const sharded = [];
  for (let round = 0; round < settings.rounds; round++) {
    hot.push(await measure(1, seconds));
    sharded.push(await measure(16, seconds));
  }
  report(
    row({
      benchmark: 'live sends of one project (postgres, 16 usage shards)',
      figure: lowerMedian(sharded),
      figureText: `${formatCount(lowerMedian(sharded))} sends/s`,
      baseline: lowerMedian(hot),
      baselineText: `${formatCount(lowerMedian(hot))} sends/s`,
      baselineName: 'one usage row',
      unit: 'sends/s',
      target: null,
      note: `runs ${sharded.map(formatCount).join(', ')} vs ${hot.map(formatCount).join(', ')} sends/s`,
    }),
  );
} finally {
  await cleanup();
}
