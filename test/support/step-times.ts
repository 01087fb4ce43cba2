import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** One row of `.ci/run`'s table of step times, as a line of JSON in `TIDINGS_STEP_TIMES`. */
export interface StepTime {
  step: string;
  /** The step this row is a part of (`.ci/run` names it in `TIDINGS_STEP_WITHIN`). */
  within?: string;
  seconds: number;
  files?: number;
  tests?: number;
}

/** The span and counts of one test project's files in a run. */
interface ProjectSpan {
  start: number;
  end: number;
  files: number;
  tests: number;
}

/**
 * A vitest reporter that measures each test project's wall time (from its first file's start to
 * its last file's end; projects of one group overlap) and counts its files and tests. With the
 * file named by `TIDINGS_STEP_TIMES`, it appends one row per project there, a part of the step
 * `TIDINGS_STEP_WITHIN` names; without it, it does nothing. `now` is injectable for its test.
 */
export function stepTimesReporter(
  options: { file?: string; within?: string; now?: () => number } = {},
): Reporter & { rows(): StepTime[] } {
  const {
    file = process.env.TIDINGS_STEP_TIMES,
    within = process.env.TIDINGS_STEP_WITHIN,
    now = () => performance.now(),
  } = options;
  const spans = new Map<string, ProjectSpan>();
  const spanOf = (module: TestModule): ProjectSpan => {
    const name = module.project.name || 'tests';
    let span = spans.get(name);
    if (!span) {
      span = { start: Number.POSITIVE_INFINITY, end: 0, files: 0, tests: 0 };
      spans.set(name, span);
    }
    return span;
  };
  const rows = (): StepTime[] =>
    [...spans].map(([project, span]) => ({
      step: `project ${project}`,
      ...(within ? { within } : {}),
      seconds: Math.max(0, span.end - span.start) / 1000,
      files: span.files,
      tests: span.tests,
    }));
  return {
    rows,
    onTestModuleStart(module) {
      const span = spanOf(module);
      span.start = Math.min(span.start, now());
    },
    onTestModuleEnd(module) {
      const span = spanOf(module);
      span.end = Math.max(span.end, now());
      span.files++;
      span.tests += [...module.children.allTests()].length;
    },
    onTestRunEnd() {
      if (!file) return;
      for (const row of rows()) appendFileSync(file, `${JSON.stringify(row)}\n`);
    },
  };
}
