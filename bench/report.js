// `node bench/report.js`: rewrites the tables of figures in bench/README.md from the benches' own
// results, the newest run of each bench/results/<bench>.jsonl (lines that bench/lib/common.js's
// `report` appends, one per figure). A table sits between `<!-- figures:<bench> -->` and
// `<!-- /figures -->`; what is between them is replaced, nothing else.
//
// `node bench/report.js --check` changes nothing and exits 1 when a table differs from what the
// results say (a hand-edited figure, or results not reported), naming the benches.
// `--readme FILE` and `--results DIR` read other files than bench/README.md and bench/results/.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const benchDir = dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    readme: { type: 'string', default: join(benchDir, 'README.md') },
    results: { type: 'string', default: join(benchDir, 'results') },
  },
});

/** Every run of a results file, by its start, each with its rows in the order they were reported. */
function readRuns(file) {
  const runs = new Map();
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let row;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new Error(`${file}:${index + 1}: not a JSON line (${error.message})`);
    }
    if (typeof row.run !== 'string' || typeof row.benchmark !== 'string') {
      throw new Error(`${file}:${index + 1}: a results line needs "run" and "benchmark"`);
    }
    if (!runs.has(row.run)) runs.set(row.run, []);
    runs.get(row.run).push(row);
  });
  return runs;
}

/** The rows of the newest run of each bench that has a results file. */
function newestRuns(dir) {
  const newest = new Map();
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir).sort()) {
    if (!entry.endsWith('.jsonl')) continue;
    const runs = readRuns(join(dir, entry));
    if (runs.size === 0) continue;
    const latest = [...runs.keys()].sort().at(-1);
    newest.set(basename(entry, '.jsonl'), runs.get(latest));
  }
  return newest;
}

const utcMinute = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

const cell = (text) => String(text ?? '').replaceAll('|', '\\|');

/** Display width as Biome measures a Markdown table's cells: one column per character. */
const width = (text) => [...text].length;

function markdownTable(header, rows) {
  const widths = header.map((_, column) => Math.max(3, ...[header, ...rows].map((line) => width(line[column]))));
  const line = (cells) => `| ${cells.map((c, i) => c + ' '.repeat(widths[i] - width(c))).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

/** The sentence above a table: when, on what, under what load, with which options. */
function caption(rows) {
  const first = rows[0];
  const loads = rows.map((r) => r.loadavg?.[0]).filter((load) => typeof load === 'number');
  const parts = [];
  if (first.source) parts.push(`From ${first.run.slice(0, 10)}, ${first.source}`);
  else parts.push(`Run of ${utcMinute(first.run)}`);
  const nodes = [...new Set(rows.map((r) => r.node).filter(Boolean))];
  if (nodes.length > 0) parts.push(`Node.js ${nodes.join(', ')}`);
  if (first.cpus) parts.push(`${first.cpus} cores`);
  if (loads.length > 0) {
    const low = Math.min(...loads);
    const high = Math.max(...loads);
    parts.push(`load average (1 min) ${low === high ? low.toFixed(1) : `${low.toFixed(1)}–${high.toFixed(1)}`}`);
  }
  const options = Object.entries(first.options ?? {}).map(([name, value]) => `\`${name}=${value}\``);
  parts.push(options.length > 0 ? `options ${options.join(' ')}` : 'default options');
  return `${parts.join('; ')}.`;
}

/** The Markdown between a bench's markers: its caption and one table of its newest run. */
function renderFigures(rows) {
  const table = markdownTable(
    ['figure', 'value', 'baseline', 'ratio', 'target', 'met?'],
    rows.map((r) => [
      cell(r.benchmark),
      cell(r.figureText),
      r.baselineText ? cell(`${r.baselineName} ${r.baselineText}`) : '—',
      typeof r.ratio === 'number' ? `${r.ratio.toFixed(2)}×` : '—',
      cell(r.targetText ?? '—'),
      r.met === null || r.met === undefined ? '—' : r.met ? 'met' : 'missed',
    ]),
  );
  return `${caption(rows)}\n\n${table}`;
}

const markers = /(<!-- figures:([a-z0-9-]+) -->)([\s\S]*?)(<!-- \/figures -->)/g;

/** The README with every table between markers rewritten; `stale` names the benches whose table changed. */
function rewrite(readme, runs) {
  const stale = [];
  const missing = [];
  const seen = new Set();
  const text = readme.replace(markers, (whole, open, name, body, close) => {
    seen.add(name);
    const rows = runs.get(name);
    if (!rows) {
      missing.push(name);
      return whole;
    }
    const fresh = `\n${renderFigures(rows)}\n\n`;
    if (fresh !== body) stale.push(name);
    return `${open}${fresh}${close}`;
  });
  const unshown = [...runs.keys()].filter((name) => !seen.has(name));
  return { text, stale, missing, unshown };
}

const readme = readFileSync(values.readme, 'utf8');
const { text, stale, missing, unshown } = rewrite(readme, newestRuns(values.results));
for (const name of missing) console.error(`no results for <!-- figures:${name} --> in ${values.results}`);
for (const name of unshown) console.error(`results of ${name} have no <!-- figures:${name} --> in ${values.readme}`);
if (values.check) {
  if (stale.length > 0) {
    console.error(
      `${values.readme}: the figures of ${stale.join(', ')} differ from ${values.results}; run node bench/report.js`,
    );
  }
  process.exit(stale.length > 0 || missing.length > 0 ? 1 : 0);
}
if (text !== readme) writeFileSync(values.readme, text);
console.log(stale.length > 0 ? `rewrote the figures of ${stale.join(', ')}` : 'the figures were up to date');
if (missing.length > 0) process.exit(1);
