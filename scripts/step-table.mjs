#!/usr/bin/env node
// Prints .ci/run's table of step times from the file its steps appended to, one JSON object a line:
// `{ step, seconds, status?, within?, files?, tests? }`. A row with `within` is a part of the step
// it names (the build inside the README's `npm ci`, a test project inside `npm test`) and is shown
// indented under it; `status` other than 0 marks the step that failed.
//
//   node scripts/step-table.mjs FILE [TOTAL_SECONDS]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** The rows of FILE's text, in the order their steps started (a step's parts follow it). */
export function parseRows(text) {
  const rows = text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
  const parts = rows.filter((row) => row.within);
  return rows
    .filter((row) => !row.within)
    .flatMap((row) => [
      row,
      ...parts.filter((part) => part.within === row.step).map((part) => ({ ...part, part: true })),
    ]);
}

const minutes = (seconds) => {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
};

/** The table as text: step, wall time, files and tests where counted, and the total. */
export function formatTable(rows, totalSeconds) {
  const lines = rows.map((row) => {
    const name = row.part ? `  ${row.step}` : row.step;
    const counts = row.files === undefined ? '' : `${row.files} files, ${row.tests} tests`;
    const failed = row.status ? 'FAILED' : '';
    return [name, `${row.seconds.toFixed(1)} s`, minutes(row.seconds), counts, failed];
  });
  if (totalSeconds !== undefined) lines.push(['total', `${totalSeconds.toFixed(1)} s`, minutes(totalSeconds), '', '']);
  const header = ['step', 'wall time', 'm:ss', 'counted', ''];
  const widths = header.map((_, column) => Math.max(...[header, ...lines].map((line) => line[column].length)));
  const format = (line) =>
    line
      .map((cell, column) =>
        column === 1 || column === 2 ? cell.padStart(widths[column]) : cell.padEnd(widths[column]),
      )
      .join('  ')
      .trimEnd();
  return [format(header), format(widths.map((width) => '-'.repeat(width))), ...lines.map(format)].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, total] = process.argv.slice(2);
  console.log(formatTable(parseRows(readFileSync(file, 'utf8')), total === undefined ? undefined : Number(total)));
}
