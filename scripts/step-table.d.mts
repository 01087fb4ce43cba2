/** A row of `.ci/run`'s table of step times (scripts/step-table.mjs). */
export interface StepRow {
  step: string;
  seconds: number;
  status?: number;
  within?: string;
  files?: number;
  tests?: number;
  /** Set on the rows `parseRows` puts under the step they are a part of. */
  part?: boolean;
}

/** The rows of the file's text, each step followed by its parts. */
export function parseRows(text: string): StepRow[];

/** The table as text, with a total line when `totalSeconds` is given. */
export function formatTable(rows: StepRow[], totalSeconds?: number): string;
