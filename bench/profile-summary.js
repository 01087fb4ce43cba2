// Summarizes a V8 .cpuprofile (from `node --cpu-prof`, or BENCH_CPU_PROF=DIR npm run bench):
// the functions with the most self time, and the most inclusive time.
// Usage: node bench/profile-summary.js FILE.cpuprofile [TOP=30] [FILTER]
import { readFileSync } from 'node:fs';

const [file, topArg, filter] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-summary.js FILE.cpuprofile [TOP] [FILTER]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const selfTicks = new Map();
for (const id of profile.samples) selfTicks.set(id, (selfTicks.get(id) ?? 0) + 1);
const total = profile.samples.length;

function label(node) {
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url.replace(/^.*\/(node_modules|packages)\//, '$1/').replace(/^file:\/\//, '');
  return `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
}

const self = new Map();
const inclusive = new Map();
for (const [id, ticks] of selfTicks) {
  const node = nodes.get(id);
  const name = label(node);
  self.set(name, (self.get(name) ?? 0) + ticks);
  // Inclusive: count each distinct frame label once per sample stack.
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const frame = label(nodes.get(at));
    if (seen.has(frame)) continue;
    seen.add(frame);
    inclusive.set(frame, (inclusive.get(frame) ?? 0) + ticks);
  }
}

const pct = (ticks) => `${((100 * ticks) / total).toFixed(1).padStart(5)}%`;
const print = (title, map) => {
  console.log(`\n${title}`);
  [...map]
    .filter(([name]) => !filter || name.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([name, ticks]) => {
      console.log(`${pct(ticks)}  ${name}`);
    });
};
console.log(`${file}: ${total} samples`);
print('self time', self);
print('inclusive time', inclusive);
