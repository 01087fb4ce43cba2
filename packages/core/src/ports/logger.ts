/** Structured log fields. Tokens and secrets are never passed here. */
export type LogFields = Record<string, unknown>;

/** Where Tidings reports what an operator should know. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Writes one JSON line per entry to stderr (info is dropped unless `verbose`). */
export function createConsoleLogger(options: { verbose?: boolean } = {}): Logger {
  const write = (level: string, message: string, fields?: LogFields) => {
    const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...fields });
    console.error(line);
  };
  return {
    info: (message, fields) => {
      if (options.verbose) write('info', message, fields);
    },
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/** A logger that drops everything: for tests. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
