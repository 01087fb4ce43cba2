/**
 * The size in MB of each of V8's semi-spaces (its young generation is two of them) that
 * `tidings serve` runs with unless told otherwise. Node.js sizes them by the machine's memory, up
 * to 64 MB on Node.js 24; a server that holds many idle streams keeps that whole young
 * generation as memory, which at 10,000 streams is more than a stream costs by itself. 8 MB costs
 * a few percent of CPU per send (docs/deploy.md, "Memory").
 */
export const DEFAULT_SEMI_SPACE_MB = 8;
const MAX_SEMI_SPACE_MB = 1024;
const FLAG = '--max-semi-space-size';

/**
 * Reads the semi-space size `tidings serve` should run with: `--max-semi-space-size MB`, else
 * `$TIDINGS_MAX_SEMI_SPACE_SIZE`, else {@link DEFAULT_SEMI_SPACE_MB}. 0 keeps Node's own sizing.
 * Null when the value is not a whole number from 0 to 1024 (the serve command refuses it).
 */
export function chosenSemiSpaceMb(argv: readonly string[], env: NodeJS.ProcessEnv): number | null {
  const value = flagValue(argv) ?? env.TIDINGS_MAX_SEMI_SPACE_SIZE ?? String(DEFAULT_SEMI_SPACE_MB);
  if (!/^\d{1,4}$/.test(value)) return null;
  const mb = Number(value);
  return mb <= MAX_SEMI_SPACE_MB ? mb : null;
}

/**
 * The Node.js options to start `tidings serve` again with, so that it runs with the chosen
 * semi-space size; null to go on in this process: another command, a size of 0 or one that is
 * refused, or a process already started with a size of its own (on Node's command line or in
 * `NODE_OPTIONS`, which the operator chose and which wins).
 */
export function semiSpaceRelaunch(
  argv: readonly string[],
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
): string[] | null {
  if (argv[0] !== 'serve') return null;
  const nodeOptions = (env.NODE_OPTIONS ?? '').split(/\s+/);
  if ([...execArgv, ...nodeOptions].some((option) => option === FLAG || option.startsWith(`${FLAG}=`))) return null;
  const mb = chosenSemiSpaceMb(argv, env);
  if (mb === null || mb === 0) return null;
  return [`${FLAG}=${mb}`, ...execArgv];
}

/** The value of `--max-semi-space-size` in the command's arguments, in either of its forms. */
function flagValue(argv: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === FLAG) value = argv[++i] ?? '';
    else if (arg.startsWith(`${FLAG}=`)) value = arg.slice(FLAG.length + 1);
  }
  return value;
}
