// Summarizes the files bench/lib/server-trace.cjs wrote: for each server process, the POST
// requests' answer times after the first SKIP (the warm-up), the WAL flushes, collections and
// event-loop gaps while they ran, and for the slowest 3% of requests the flushes and collections
// that overlapped each.
// Usage: node bench/trace-summary.js DIR [SKIP=100]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, skipArg] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node bench/trace-summary.js DIR [SKIP]');
  process.exit(2);
}
const skip = Number(skipArg ?? 100);

const quantiles = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
  return sorted.length === 0
    ? 'none'
    : `n ${sorted.length}, p50 ${q(50)}, p90 ${q(90)}, p99 ${q(99)}, max ${sorted.at(-1)} ms`;
};

for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
  const trace = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const requests = trace.requests.slice(skip);
  if (requests.length === 0) continue;
  const from = requests[0][0];
  const to = requests.at(-1)[0] + requests.at(-1)[1];
  const within = (rows) => rows.filter(([start]) => start >= from && start <= to);
  console.log(`${file}`);
  console.log(`  requests (answer written): ${quantiles(requests.map(([, d]) => d))}`);
  console.log(`  WAL flushes: ${quantiles(within(trace.flushes).map(([, d]) => d))}`);
  const gcs = within(trace.gcs);
  console.log(`  collections: ${gcs.length}, ${gcs.map(([, d]) => d).join(', ')} ms`);
  console.log(
    `  event-loop gaps over 6 ms: ${
      within(trace.gaps)
        .map(([, d]) => d)
        .join(', ') || 'none'
    }`,
  );
  const durations = requests.map(([, d]) => d).sort((a, b) => a - b);
  const slow = durations[Math.floor(durations.length * 0.97)];
  for (const [start, duration] of requests.filter(([, d]) => d >= slow)) {
    const overlaps = (rows) => rows.filter(([s, d]) => s < start + duration && s + d > start).map(([, d]) => d);
    console.log(
      `    slow request at +${Math.round(start - from)} ms: ${duration} ms; flushes ${overlaps(trace.flushes).join(', ') || '-'}; collections ${overlaps(trace.gcs).join(', ') || '-'}`,
    );
  }
}
