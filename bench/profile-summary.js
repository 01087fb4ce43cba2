// Summarizes a V8 .cpuprofile (from `node --cpu-prof`, or BENCH_CPU_PROF=DIR npm run bench):
// the functions with the most self time, and the most inclusive time, as shares of the samples
// in which the process was not idle.
// Usage: node bench/profile-summary.js FILE.cpuprofile [TOP=30] [FILTER] [--from S] [--to S] [--timeline]
//   --from S, --to S: only the samples taken from, or up to, S seconds after the profile's start
//     (a server's profile spans several phases, e.g. send-read's sends, then its reads);
//   --timeline: instead, the busy samples of each second, to find a phase's seconds.
import { readFileSync } from 'node:fs';

const positional = [];
const flags = { from: -Infinity, to: Infinity, timeline: false };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--timeline') flags.timeline = true;
  else if (args[i] === '--from' || args[i] === '--to') flags[args[i].slice(2)] = Number(args[++i]);
  else positional.push(args[i]);
}
const [file, topArg, filter] = positional;
if (!file || Number.isNaN(flags.from) || Number.isNaN(flags.to)) {
  console.error('usage: node bench/profile-summary.js FILE.cpuprofile [TOP] [FILTER] [--from S] [--to S] [--timeline]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

// Each sample's time, in seconds after the start: timeDeltas are µs, each from the one before.
const seconds = [];
let clock = profile.startTime;
for (const delta of profile.timeDeltas ?? []) {
  clock += delta;
  seconds.push((clock - profile.startTime) / 1e6);
}
const idle = (id) => nodes.get(id).callFrame.functionName === '(idle)';

if (flags.timeline) {
  const busy = new Map();
  profile.samples.forEach((id, i) => {
    if (idle(id)) return;
    const second = Math.floor(seconds[i] ?? 0);
    busy.set(second, (busy.get(second) ?? 0) + 1);
  });
  console.log(`${file}: busy samples per second`);
  for (const [second, count] of [...busy].sort((a, b) => a[0] - b[0]))
    console.log(`${String(second).padStart(5)} s  ${count}`);
  process.exit(0);
}

const selfTicks = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const second = seconds[i] ?? 0;
  if (idle(id) || second < flags.from || second > flags.to) return;
  selfTicks.set(id, (selfTicks.get(id) ?? 0) + 1);
  total++;
});

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
const span =
  Number.isFinite(flags.from) || Number.isFinite(flags.to) ? ` between ${flags.from} s and ${flags.to} s` : '';
console.log(`${file}: ${total} busy samples${span}`);
if (total === 0) {
  console.log('nothing to summarize (--timeline shows the seconds in which the process was busy)');
  process.exit(0);
}
print('self time', self);
print('inclusive time', inclusive);
