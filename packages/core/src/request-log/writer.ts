import type { Logger } from '../ports/logger.js';
import type { Metrics } from '../ports/metrics.js';
import { finishRequestLogEntry, type RawRequestLogEntry } from './entry.js';
import type { RequestLogStore } from './store.js';

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

/** Buffers the request log's entries and writes them in batches, off the requests' path. */
export interface RequestLogWriter {
  /** Takes an entry; never blocks, never throws: past the bound it is dropped and counted. */
  record(entry: RawRequestLogEntry): void;
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

  function flush(): Promise<void> {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
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
      } else if (timer === null) {
        timer = setTimeout(flush, flushIntervalMs);
        if (typeof timer === 'object' && 'unref' in timer) timer.unref();
      }
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
