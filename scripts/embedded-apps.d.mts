/** The most lines of code (not blank, not only a comment) an embedded app may take. */
export const MOST_LINES: number;
/** Each framework's app file (in scripts/consumer-apps/), the packages and the libraries it installs. */
export const APPS: Record<
  string,
  {
    file: string;
    packages: string[];
    libraries: string[];
    /** Its own budget of lines, where it is not {@link MOST_LINES}. */
    mostLines?: number;
    /** SQL run in a database of its own, on which it runs (`DATABASE_URL`). */
    database?: string;
    /** Its Prisma schema (in scripts/consumer-apps/), generated before it compiles. */
    prismaSchema?: string;
    /** Its libraries installed in a folder of its own rather than with the other apps'. */
    ownInstall?: boolean;
  }
>;
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
/**
 * Runs an app in `dir` (`node` with `args`, `{port}` replaced by a free port, also `PORT`) through a
 * token, a stream, a send in process and a SIGTERM, after which it must exit with `exitCode`.
 */
export function runApp(
  dir: string,
  args: string[],
  options?: { env?: Record<string, string>; exitCode?: number },
): Promise<{ ok: boolean; output: string }>;
/** The version of `name` the repository builds with (its node_modules). */
export function versionOf(name: string): string;
