/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every
 * line must be a `# HELP`, a `# TYPE`, a sample or blank, or reading throws. (npm has no
 * maintained parser of the format; the one there is drops the labels of histograms.)
 */

/** One sample line: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A scrape: its samples, and the declared type of each family. */
export interface Scrape {
  samples: Sample[];
  types: Map<string, string>;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)",?/;
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const HELP = new RegExp(`^# HELP ${NAME} .*$`);

function readLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`malformed labels in: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(match[0].length);
  }
  return labels;
}

/** A Go float, as Prometheus reads it: `NaN` and `±Inf` in any case. */
function readValue(text: string, line: string): number {
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (/^[+-]?inf$/.test(lower)) return lower.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  const value = Number(text);
  if (text.trim() === '' || Number.isNaN(value)) throw new Error(`malformed value in: ${line}`);
  return value;
}

/** Reads a scrape; any line that is not in the format throws. */
export function parseExposition(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '' || HELP.test(line)) continue;
    const type = TYPE.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a line of the text format: ${line}`);
    samples.push({ name: sample[1]!, labels: readLabels(sample[2] ?? '', line), value: readValue(sample[3]!, line) });
  }
  return { samples, types };
}

/**
 * The sum over a family's samples that carry `labels` (and maybe more): a counter's or a
 * gauge's value, a histogram's count. Undefined when the family is not declared.
 */
export function total(scrape: Scrape, family: string, labels: Record<string, string> = {}): number | undefined {
  const type = scrape.types.get(family);
  if (type === undefined) return undefined;
  const name = type === 'histogram' || type === 'summary' ? `${family}_count` : family;
  let sum = 0;
  for (const sample of scrape.samples) {
    if (sample.name !== name) continue;
    if (Object.entries(labels).every(([label, value]) => sample.labels[label] === value)) sum += sample.value;
  }
  return sum;
}
