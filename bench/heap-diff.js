// Compares two V8 heap snapshots of one process (e.g. before and after its streams opened): the
// live objects' self size by constructor (and by kind for strings, arrays, code and the rest),
// the later snapshot minus the earlier, largest growth first, per stream when given their number.
// A server writes a snapshot on a signal when started with `--heapsnapshot-signal=SIGWINCH`
// (and `--diagnostic-dir=DIR`; not SIGUSR2, which lib/memory-report.cjs answers in the
// benches); snapshots hold live objects only, so the figures leave out what V8 has not
// collected yet and its young generation's size, which RSS counts.
// Usage: node bench/heap-diff.js BEFORE.heapsnapshot AFTER.heapsnapshot [STREAMS=1] [TOP=40]
import { readFileSync } from 'node:fs';

const [beforeFile, afterFile, streamsArg = '1', topArg = '40'] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
  console.error('usage: node bench/heap-diff.js BEFORE.heapsnapshot AFTER.heapsnapshot [STREAMS] [TOP]');
  process.exit(2);
}
const streams = Math.max(1, Number(streamsArg));

/** Self size and count of the snapshot's nodes, by constructor (objects) or by kind (the rest). */
function summarize(file) {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map();
  let total = 0;
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + typeAt]];
    const name = snapshot.strings[snapshot.nodes[i + nameAt]].slice(0, 60);
    const key = type === 'object' || type === 'native' ? name : type === 'closure' ? `closure ${name}` : `(${type})`;
    const size = snapshot.nodes[i + sizeAt];
    const group = groups.get(key) ?? { count: 0, size: 0 };
    group.count++;
    group.size += size;
    total += size;
    groups.set(key, group);
  }
  return { groups, total };
}

const before = summarize(beforeFile);
const after = summarize(afterFile);
const rows = [...after.groups].map(([key, group]) => {
  const earlier = before.groups.get(key) ?? { count: 0, size: 0 };
  return { key, count: group.count - earlier.count, size: group.size - earlier.size };
});
rows.sort((a, b) => b.size - a.size);
const mb = (bytes) => `${(bytes / 1_048_576).toFixed(1)} MB`;
console.log(
  `live heap ${mb(before.total)} -> ${mb(after.total)}: ${((after.total - before.total) / streams).toFixed(0)} B per stream over ${streams}`,
);
for (const row of rows.slice(0, Number(topArg))) {
  console.log(
    `${(row.size / streams).toFixed(1).padStart(9)} B per stream ${(row.count / streams).toFixed(2).padStart(7)} objects per stream  ${row.key}`,
  );
}
