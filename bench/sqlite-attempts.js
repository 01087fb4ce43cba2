// What an attempt costs the SQLite file store, and how much of it one index is: sends through the
// store itself (`createNotification`, then `markAttemptsSent` for what a stream wrote, every
// 20 ms as streams do) to BENCH_SQLITE_RECIPIENTS (1,800) recipients × 10 browsers, with
// BENCH_SQLITE_IN_FLIGHT sends in flight (2 and 10: the group commit makes groups of about that
// many), for BENCH_SQLITE_SENDS (5,000) sends a turn (after as many unmeasured). Prints the CPU time of the process (every
// thread: the store flushes the WAL on a worker) per attempt and the bytes it wrote per attempt
// (`wchar` of /proc/self/io: the WAL and its checkpoints).
//
// Figure: the same store on a file whose index of pending attempts by browser
// (`attempts_pending_by_browser`) was dropped after the migrations, which no send reads. It is
// the only index an attempt enters at a place spread over all browsers; the figure is what any
// other layout of that index could save at most. Baseline: the schema as shipped. Both on fresh
// files, alternating over BENCH_ROUNDS rounds; the median counts.
//
// Run after `npm run build`: node bench/sqlite-attempts.js
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newId } from '@tidings/core';
import { createSqliteStore, migrateSqliteFile } from '@tidings/store-sqlite';
import Database from 'better-sqlite3';
import { cleanup, envNumber, formatCount, lowerMedian, report, row, settings, tempDir } from './lib/common.js';
import { notificationInput, storeProject } from './lib/setup.js';

const RECIPIENTS = Math.max(1, Math.round(envNumber('BENCH_SQLITE_RECIPIENTS', 1800)));
const BROWSERS = 10;
const SENDS = Math.max(100, Math.round(envNumber('BENCH_SQLITE_SENDS', 5_000)));
const IN_FLIGHT = (process.env.BENCH_SQLITE_IN_FLIGHT ?? '2,10').split(',').map(Number).filter(Boolean);

const written = () => Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))[1]);
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function measure(withoutIndex, inFlight) {
  const path = join(tempDir('sqlite-attempts'), 'tidings.db');
  migrateSqliteFile(path);
  if (withoutIndex) {
    const db = new Database(path);
    db.exec('DROP INDEX attempts_pending_by_browser');
    db.close();
  }
  const store = createSqliteStore({ path });
  try {
    const now = Date.now();
    const projectId = await storeProject(store, now);
    // All at once: the group commit writes them in a few transactions.
    await Promise.all(
      Array.from({ length: RECIPIENTS * BROWSERS }, (_, i) =>
        store.registerBrowser({
          id: newId('brw'),
          projectId,
          recipient: `user-${Math.floor(i / BROWSERS)}`,
          secretHash: 'x',
          now,
        }),
      ),
    );
    let sent = [];
    const markSent = async () => {
      const attemptIds = sent;
      sent = [];
      await store.markAttemptsSent({ attemptIds, now: Date.now(), via: 'stream' });
    };
    const send = async (index) => {
      const at = Date.now();
      const result = await store.createNotification(
        notificationInput({ projectId, recipient: `user-${index % RECIPIENTS}`, title: 'Attempts', at }),
      );
      if (result.kind !== 'created') throw new Error(result.kind);
      for (const attempt of result.created.attempts) sent.push(attempt.id);
      return result.created.attempts.length;
    };
    /** SENDS sends, `inFlight` at a time, their attempts marked sent every 20 ms; the attempts made. */
    const pass = async () => {
      let next = 0;
      let attempts = 0;
      const timer = setInterval(markSent, 20);
      try {
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            while (next < SENDS) {
              // Not `attempts += await …`: that reads `attempts` before the await.
              const made = await send(next++);
              attempts += made;
            }
          }),
        );
      } finally {
        clearInterval(timer);
      }
      await markSent();
      return attempts;
    };
    // A first pass warms the code and the page cache; the second counts.
    await pass();
    const cpuBefore = cpuMicros();
    const bytesBefore = written();
    const attempts = await pass();
    return {
      cpuPerAttempt: (cpuMicros() - cpuBefore) / attempts,
      bytesPerAttempt: (written() - bytesBefore) / attempts,
    };
  } finally {
    await store.close();
  }
}

try {
  console.log(
    `sqlite attempts: ${formatCount(SENDS)} sends to ${formatCount(RECIPIENTS)} recipients × ${BROWSERS} browsers, ` +
      `${IN_FLIGHT.join(' and ')} in flight, ${settings.rounds} rounds`,
  );
  for (const inFlight of IN_FLIGHT) {
    const shipped = [];
    const without = [];
    for (let round = 0; round < settings.rounds; round++) {
      shipped.push(await measure(false, inFlight));
      without.push(await measure(true, inFlight));
    }
    const cpu = (runs) => lowerMedian(runs.map((r) => r.cpuPerAttempt));
    const bytes = (runs) => lowerMedian(runs.map((r) => r.bytesPerAttempt));
    report(
      row({
        benchmark: `sqlite store, CPU per attempt without the pending index by browser (${inFlight} in flight)`,
        figure: cpu(without),
        figureText: `${cpu(without).toFixed(1)} µs`,
        baseline: cpu(shipped),
        baselineText: `${cpu(shipped).toFixed(1)} µs`,
        baselineName: 'the schema as shipped',
        unit: 'µs',
        target: null,
        note:
          `bytes written per attempt ${formatCount(bytes(without))} against ${formatCount(bytes(shipped))}; ` +
          `runs ${without.map((r) => r.cpuPerAttempt.toFixed(1)).join(', ')} against ${shipped.map((r) => r.cpuPerAttempt.toFixed(1)).join(', ')} µs`,
      }),
    );
  }
} finally {
  await cleanup();
}
