import { type ParseArgsConfig, parseArgs } from 'node:util';

/** A command line that does not make sense: the CLI prints the usage and exits 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage to print, e.g. `key create`; undefined for the overview. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Flags every command takes. */
export const commonOptions = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** Flags of a command, besides the common ones. */
export type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** The flags and positionals of one command line, strictly parsed. */
export interface ParsedCommand {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses `args` for `command`; an unknown flag or a missing value is a {@link UsageError}. */
export function parseCommand(command: string, args: string[], options: OptionsConfig): ParsedCommand {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...commonOptions, ...options },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedCommand['values'], positionals };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
}

/** The string value of a required flag. */
export function requiredString(parsed: ParsedCommand, name: string, command: string): string {
  const value = parsed.values[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`, command);
  return value;
}

/** A flag's value as a whole number in [min, max], or undefined when the flag is absent. */
export function integerFlag(
  parsed: ParsedCommand,
  name: string,
  command: string,
  range: { min: number; max: number },
): number | undefined {
  return parseWholeNumber(parsed.values[name], `--${name}`, command, range);
}

/** `value` (a flag's or an environment variable's) as a whole number in [min, max]; undefined stays undefined. */
export function parseWholeNumber(
  value: unknown,
  label: string,
  command: string,
  range: { min: number; max: number },
): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < range.min || number > range.max) {
    throw new UsageError(`${label} must be a whole number from ${range.min} to ${range.max}`, command);
  }
  return number;
}

/** Exactly the named positionals, in order. */
export function expectPositionals(parsed: ParsedCommand, names: string[], command: string): string[] {
  if (parsed.positionals.length !== names.length) {
    const expected = names.length === 0 ? 'no arguments' : names.join(' ');
    throw new UsageError(`expected ${expected}, got ${parsed.positionals.length} argument(s)`, command);
  }
  return parsed.positionals;
}

/** The database path: `--db`, else `TIDINGS_DB`, else `./tidings.db`. */
export function databasePath(parsed: ParsedCommand, env: NodeJS.ProcessEnv): string {
  const flag = parsed.values.db;
  if (typeof flag === 'string' && flag.length > 0) return flag;
  return env.TIDINGS_DB || './tidings.db';
}
