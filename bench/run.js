// `npm run bench`: runs every benchmark in its own child process, one after the other, so that
// none disturbs another, then prints one table (benchmark | figure | baseline | ratio | target |
// met?) and writes it as JSON to bench/results/latest.json. Benchmarks print figures; they never
// fail a build. Options are environment variables, listed in bench/README.md.
//
// Run after `npm run build`. `node bench/run.js limiter core` runs only the named benchmarks;
// `streams-100k` runs only when named.
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { benchDir, settings } from './lib/common.js';

const benchmarks = [
  { name: 'limiter', script: 'limiter.js' },
  { name: 'core', script: 'core.js' },
  { name: 'send-read', script: 'send-read.js' },
  { name: 'metrics', script: 'metrics-cost.js' },
  { name: 'fanout', script: 'fanout.js' },
  { name: 'headroom', script: 'headroom.js' },
  { name: 'fanout-throughput', script: 'fanout-throughput.js' },
  { name: 'fanout-instances', script: 'fanout-instances.js' },
  { name: 'stalls', script: 'stalls.js' },
  { name: 'ceiling', script: 'ceiling.js' },
  { name: 'postgres-usage', script: 'postgres-usage.js' },
  { name: 'postgres-groups', script: 'postgres-groups.js' },
  { name: 'tx-send', script: 'tx-send.js' },
  { name: 'sqlite-attempts', script: 'sqlite-attempts.js' },
  { name: 'hub-routing', script: 'hub-routing.js' },
  { name: 'web-push', script: 'web-push.js' },
  { name: 'webhooks', script: 'webhooks.js' },
  { name: 'receipts-webhooks', script: 'receipts-webhooks.js' },
  { name: 'inbox', script: 'inbox.js' },
  // Minutes of the whole machine (100,000 streams): run only when named.
  { name: 'streams-100k', script: 'streams-100k.js', onlyWhenNamed: true },
];

const only = process.argv.slice(2);
const unknown = only.filter((name) => !benchmarks.some((b) => b.name === name));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; known: ${benchmarks.map((b) => b.name).join(', ')}`);
  process.exit(2);
}
const selected =
  only.length > 0 ? benchmarks.filter((b) => only.includes(b.name)) : benchmarks.filter((b) => !b.onlyWhenNamed);

function runOne({ name, script }) {
  return new Promise((resolve) => {
    const rows = [];
    const started = performance.now();
    const child = fork(join(benchDir, script), [], { stdio: 'inherit' });
    child.on('message', (message) => {
      if (message?.type === 'row') rows.push(message.row);
    });
    const stop = () => child.kill('SIGTERM');
    process.once('SIGINT', stop);
    child.once('exit', (code, signal) => {
      process.off('SIGINT', stop);
      resolve({ name, rows, ok: code === 0, exit: code ?? signal, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const results = [];
for (const benchmark of selected) {
  console.log(`\n=== ${benchmark.name} (bench/${benchmark.script})`);
  const result = await runOne(benchmark);
  if (!result.ok) console.error(`${benchmark.name} exited with ${result.exit}`);
  results.push(result);
}

const table = [['benchmark', 'figure', 'baseline', 'ratio', 'target', 'met?', 'Node']];
for (const result of results) {
  if (!result.ok && result.rows.length === 0) table.push([result.name, `FAILED (${result.exit})`, '', '', '', '', '']);
  for (const r of result.rows) {
    table.push([
      r.benchmark,
      r.figureText,
      r.baselineText ? `${r.baselineName} ${r.baselineText}` : '—',
      r.ratio === null ? '—' : `${r.ratio.toFixed(2)}×`,
      r.targetText ?? '—',
      r.met === null ? '—' : r.met ? 'met' : 'MISSED',
      r.node,
    ]);
  }
}
const widths = table[0].map((_, column) => Math.max(...table.map((line) => [...line[column]].length)));
const line = (cells) => `| ${cells.map((cell, i) => cell + ' '.repeat(widths[i] - [...cell].length)).join(' | ')} |`;
console.log(`\n${line(table[0])}`);
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const cells of table.slice(1)) console.log(line(cells));

const machine = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? null,
  memoryBytes: totalmem(),
  node: process.version,
};
const output = {
  date: new Date().toISOString(),
  machine,
  settings,
  benchmarks: results.map(({ name, ok, exit, seconds, rows }) => ({ name, ok, exit, seconds, rows })),
};
mkdirSync(join(benchDir, 'results'), { recursive: true });
const file = join(benchDir, 'results/latest.json');
writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
console.log(`\n${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}; written to ${file}`);
