/** The most lines of code (not blank, not only a comment) an embedded app may take. */
export const MOST_LINES: number;
/** Each framework's app file (in scripts/consumer-apps/), the packages and the libraries it installs. */
export const APPS: Record<string, { file: string; packages: string[]; libraries: string[] }>;
/** The lines of code of a TypeScript source: neither blank nor only a `//` comment. */
export function linesOfCode(source: string): number;
/** Counts, compiles (ES module and CommonJS) and runs each app in `app`; one result per check. */
export function checkEmbeddedApps(app: string): Promise<{ name: string; ok: boolean; output: string }[]>;
/** Runs `command` with `args` in `cwd`: whether it exited with 0, and its command line and output. */
export function runCommand(
  command: string,
  args: string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ ok: boolean; output: string }>;
