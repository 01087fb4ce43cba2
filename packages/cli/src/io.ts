import { newId, TidingsError, toProblem } from '@tidings/core';
import { OperatorRefusal } from './secret-keys.js';

/** Where the CLI writes and what environment it reads: the process's, or a test's. */
export interface CliIo {
  /** Writes one block of text (a newline is added) to standard output. */
  stdout(text: string): void;
  /** Writes one block of text (a newline is added) to standard error. */
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
}

/** The running process's streams and environment. */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
};

/** Any failure as a {@link TidingsError}: the operator sees the message of an unexpected one too. */
export function asTidingsError(error: unknown): TidingsError {
  if (error instanceof TidingsError) return error;
  return new TidingsError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error));
}

/**
 * Reports a failed command and returns its exit code, 1: problem details on stdout with `--json`,
 * else `error: CODE: detail` on stderr.
 */
export function reportFailure(io: CliIo, failure: unknown, json: boolean): number {
  // What the operator must fix (a secrets key missing or wrong) is one plain line.
  if (failure instanceof OperatorRefusal && !json) {
    io.stderr(`error: ${failure.message}`);
    return 1;
  }
  const error =
    failure instanceof OperatorRefusal
      ? new TidingsError('VALIDATION_FAILED', failure.message)
      : asTidingsError(failure);
  if (json) {
    io.stdout(JSON.stringify(toProblem(error, newId('req')), null, 2));
  } else {
    const fields = (error.errors ?? []).map((field) => `\n  ${field.path}: ${field.message}`).join('');
    io.stderr(`error: ${error.code}: ${error.message}${fields}`);
  }
  return 1;
}

/** Prints a command's result: the JSON with `--json`, else the readable text. */
export function reportSuccess(io: CliIo, output: { result: unknown; text: string }, json: boolean): number {
  io.stdout(json ? JSON.stringify(output.result, null, 2) : output.text);
  return 0;
}
