import { DEFAULT_REQUEST_LOG_RETENTION_DAYS } from './store.js';

/** The request log of an instance (docs/api.md#request-log). */
export interface RequestLogOptions {
  /** Days an entry is kept; the sweeper deletes older ones. @default 7 */
  retentionDays?: number;
  /** Entries waiting to be written at most; beyond, they are dropped and counted. @default 10000 */
  maxBufferedEntries?: number;
  /** How long an entry waits at most before its batch is written, in milliseconds. @default 1000 */
  flushIntervalMs?: number;
  /**
   * False: no request is recorded, and the entries kept from before are still deleted after the
   * retention (a log turned off). @default true
   */
  record?: boolean;
}

/** {@link RequestLogOptions} with every default applied. */
export interface ResolvedRequestLogOptions {
  record: boolean;
  retentionMs: number;
  maxBufferedEntries: number;
  flushIntervalMs: number;
  /** Entries per write. */
  batchSize: number;
}

const DAY_MS = 86_400_000;
const BATCH_SIZE = 500;

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`Tidings option requestLog.${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/** Applies the defaults, and throws on a bad option. */
export function resolveRequestLogOptions(options: RequestLogOptions | undefined): ResolvedRequestLogOptions {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError('Tidings option requestLog must be an object');
  }
  const given = options ?? {};
  const retentionDays = positiveInteger('retentionDays', given.retentionDays ?? DEFAULT_REQUEST_LOG_RETENTION_DAYS);
  if (retentionDays > 365) throw new TypeError('Tidings option requestLog.retentionDays must be at most 365');
  const maxBufferedEntries = positiveInteger('maxBufferedEntries', given.maxBufferedEntries ?? 10_000);
  if (given.record !== undefined && typeof given.record !== 'boolean') {
    throw new TypeError('Tidings option requestLog.record must be true or false');
  }
  return {
    record: given.record !== false,
    retentionMs: retentionDays * DAY_MS,
    maxBufferedEntries,
    flushIntervalMs: positiveInteger('flushIntervalMs', given.flushIntervalMs ?? 1_000),
    batchSize: Math.min(BATCH_SIZE, maxBufferedEntries),
  };
}
