import type { Logger } from '../ports/logger.js';
import type { Metrics } from '../ports/metrics.js';
import type { KeyMode } from '../ports/records.js';
import { newId } from '../shared/ids.js';
import { finishRequestLogEntry, type RawRequestLogEntry } from './entry.js';
import type { RequestLogEntry, RequestLogStore } from './store.js';

/** Options of {@link createRequestLogWriter}. */
export interface RequestLogWriterOptions {
  store: RequestLogStore;
  logger: Logger;
  metrics: Metrics;
  /** Entries held at most (waiting, or in a write under way); those beyond are dropped and counted. */
  maxBufferedEntries: number;
  /** How long an entry waits at most for its batch to be written. */
  flushIntervalMs: number;
  /** Entries per write: each batch is one call of `appendRequestLog`, one transaction. */
  batchSize: number;
}

/** A successful read of a notification, counted instead of kept (docs/api.md#request-log). */
export interface CountedRead {
  projectId: string;
  keyPrefix: string;
  mode: KeyMode;
  notificationId: string;
  createdAt: number;
  durationMs: number;
}

/** The path a count of reads is kept under: no request has it (`{` is in no id), so it names the count. */
export const READ_COUNT_PATH = '/v1/notifications/{id}';

/** The notifications a count of reads names at most (the first read of each, in order). */
export const READ_COUNT_NOTIFICATIONS = 20;

/** Reads of one key counted since the last flush. */
interface ReadCount {
  projectId: string;
  keyPrefix: string;
  mode: KeyMode;
  first: number;
  last: number;
  reads: number;
  totalMs: number;
  notificationIds: Set<string>;
  /** Reads of notifications beyond those named. */
  unnamed: number;
}

/** The entry that keeps a count of reads: one per key and flush, its answer body saying how many. */
export function readCountEntry(count: ReadCount): RequestLogEntry {
  const summary = {
    object: 'read_count',
    reads: count.reads,
    first_at: new Date(count.first).toISOString(),
    last_at: new Date(count.last).toISOString(),
    notification_ids: [...count.notificationIds],
    reads_of_unnamed_notifications: count.unnamed,
  };
  return {
    requestId: newId('req', count.first),
    projectId: count.projectId,
    method: 'GET',
    path: READ_COUNT_PATH,
    status: 200,
    code: null,
    keyPrefix: count.keyPrefix,
    mode: count.mode,
    idempotencyKey: null,
    notificationIds: [...count.notificationIds],
    recipient: null,
    createdAt: count.first,
    durationMs: count.totalMs / count.reads,
    requestBody: null,
    responseBody: { text: JSON.stringify(summary), truncated: false },
  };
}

/** Buffers the request log's entries and writes them in batches, off the requests' path. */
export interface RequestLogWriter {
  /** Takes an entry; never blocks, never throws: past the bound it is dropped and counted. */
  record(entry: RawRequestLogEntry): void;
  /** Counts a successful read: one entry per key and flush keeps how many there were. */
  countRead(read: CountedRead): void;
  /** Writes every entry held now; resolves once they are written (or their write failed). */
  flush(): Promise<void>;
  /** Writes what is held and stops: entries recorded afterwards are dropped. */
  close(): Promise<void>;
  /** Entries dropped since the start: the buffer was full, the writer closed, or their write failed. */
  readonly dropped: number;
}

/**
 * The request log's writer (docs/api.md#request-log). A request's entry is only pushed onto an
 * array: redacting it and writing it wait for the next flush, on a timer armed by the first entry
 * after a flush, or at once when a batch is full. Writes run one at a time. Under overload the
 * buffer stops at its bound and what comes beyond is dropped: counted in the metrics, and told in
 * one warning per burst (a burst ends once the buffer has drained to half its bound). A crash loses what is held.
 */
export function createRequestLogWriter(options: RequestLogWriterOptions): RequestLogWriter {
  const { store, logger, metrics, maxBufferedEntries, flushIntervalMs, batchSize } = options;
  let buffer: RawRequestLogEntry[] = [];
  // Entries recorded and not yet written: those in the buffer and those of the writes under way.
  let held = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;
  let dropped = 0;
  let inBurst = false;

  function drop(count: number, reason: string): void {
    dropped += count;
    metrics.requestLogDropped(count);
    if (inBurst) return;
    inBurst = true;
    logger.warn('request log entries dropped', { reason, max_buffered_entries: maxBufferedEntries });
  }

  let counts = new Map<string, ReadCount>();

  async function writeBatch(batch: RawRequestLogEntry[]): Promise<void> {
    try {
      await store.appendRequestLog(batch.map(finishRequestLogEntry));
    } catch (error) {
      drop(batch.length, 'write failed');
      logger.error('request log write failed', { entries: batch.length, error: String(error) });
    } finally {
      held -= batch.length;
    }
  }

  async function writeCounts(taken: ReadCount[]): Promise<void> {
    try {
      await store.appendRequestLog(taken.map(readCountEntry));
    } catch (error) {
      drop(taken.length, 'write failed');
      logger.error('request log write failed', { entries: taken.length, error: String(error) });
    }
  }

  function arm(): void {
    if (timer !== null) return;
    timer = setTimeout(flush, flushIntervalMs);
    if (typeof timer === 'object' && 'unref' in timer) timer.unref();
  }

  function flush(): Promise<void> {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    if (counts.size > 0) {
      const taken = [...counts.values()];
      counts = new Map();
      writing = writing.then(() => writeCounts(taken));
    }
    if (buffer.length === 0) return writing;
    const taken = buffer;
    buffer = [];
    writing = writing.then(async () => {
      for (let start = 0; start < taken.length; start += batchSize) {
        await writeBatch(taken.slice(start, start + batchSize));
      }
      if (held <= maxBufferedEntries / 2) inBurst = false;
    });
    return writing;
  }

  return {
    record(entry) {
      if (closed) return drop(1, 'closed');
      if (held >= maxBufferedEntries) return drop(1, 'buffer full');
      buffer.push(entry);
      held++;
      if (buffer.length >= batchSize) {
        void flush();
      } else {
        arm();
      }
    },
    countRead(read) {
      if (closed) return drop(1, 'closed');
      const key = `${read.projectId}\n${read.keyPrefix}\n${read.mode}`;
      let count = counts.get(key);
      if (count === undefined) {
        count = {
          projectId: read.projectId,
          keyPrefix: read.keyPrefix,
          mode: read.mode,
          first: read.createdAt,
          last: read.createdAt,
          reads: 0,
          totalMs: 0,
          notificationIds: new Set(),
          unnamed: 0,
        };
        counts.set(key, count);
        arm();
      }
      count.reads++;
      count.totalMs += read.durationMs;
      count.last = read.createdAt;
      if (count.notificationIds.has(read.notificationId)) return;
      if (count.notificationIds.size < READ_COUNT_NOTIFICATIONS) count.notificationIds.add(read.notificationId);
      else count.unnamed++;
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
    get dropped() {
      return dropped;
    },
  };
}
