import { backoffDelay } from './backoff.js';
import { TidingsError } from './errors.js';
import type { TidingsEnvironment } from './options.js';
import type { TidingsReceiptType } from './types.js';

/** One event of `POST /v1/events`. */
export interface Receipt {
  type: TidingsReceiptType;
  attempt_id: string;
  at: string;
}

/** The browser a receipt belongs to; kept per receipt because the browser can change. */
export interface BrowserCredentials {
  browserId: string;
  browserSecret: string;
}

/** How a send went: done, worth another try (after the error's `Retry-After` if any), or refused for good. */
export type SendOutcome = { ok: true } | { ok: false; retry: boolean; error: TidingsError };

/** Options of {@link createReceiptBatcher}. */
export interface ReceiptBatcherOptions {
  send: (browser: BrowserCredentials, events: Receipt[]) => Promise<SendOutcome>;
  environment: Pick<TidingsEnvironment, 'setTimeout' | 'clearTimeout' | 'random'>;
  onError: (error: TidingsError) => void;
}

/** How long a receipt waits for others to join its batch, in milliseconds. */
const flushDelayMs = 50;
/** Most events in one request (the server's limit). */
const maxBatchSize = 100;
/** Tries of one batch, the first included. */
const maxTries = 4;

/** Collects receipts and posts them in batches. */
export interface ReceiptBatcher {
  add(browser: BrowserCredentials, receipt: Receipt): void;
  /** Sends everything queued now (on page hide, close, disconnect). */
  flush(): void;
}

/**
 * Creates a batcher: a receipt waits `flushDelayMs` for company, a full batch goes at once, and a
 * batch that failed on the network, a 429 or a 5xx is tried again with backoff (receipts are
 * idempotent on the server, so a repeat is harmless).
 */
export function createReceiptBatcher(options: ReceiptBatcherOptions): ReceiptBatcher {
  const { environment } = options;
  let queue: [BrowserCredentials, Receipt][] = [];
  let timer: unknown = null;

  const sendBatch = async (browser: BrowserCredentials, events: Receipt[], tries: number): Promise<void> => {
    const outcome = await options.send(browser, events);
    if (outcome.ok) return;
    if (!outcome.retry || tries + 1 >= maxTries) {
      const { error } = outcome;
      options.onError(
        new TidingsError('RECEIPTS_FAILED', `Receipts lost: ${error.message}`, {
          status: error.status,
          requestId: error.requestId,
          cause: error,
        }),
      );
      return;
    }
    const seconds = outcome.error.retryAfterSeconds;
    environment.setTimeout(
      () => void sendBatch(browser, events, tries + 1),
      seconds === null ? backoffDelay(tries, environment.random) + 250 : seconds * 1000,
    );
  };

  const flush = () => {
    environment.clearTimeout(timer);
    timer = null;
    while (queue.length > 0) {
      const browser = queue[0]![0];
      let size = 0;
      while (size < queue.length && size < maxBatchSize && queue[size]![0].browserId === browser.browserId) size++;
      const batch = queue.slice(0, size).map((item) => item[1]);
      queue = queue.slice(size);
      void sendBatch(browser, batch, 0);
    }
  };

  return {
    add(browser, receipt) {
      queue.push([browser, receipt]);
      if (queue.length >= maxBatchSize) flush();
      else if (timer === null) timer = environment.setTimeout(flush, flushDelayMs);
    },
    flush,
  };
}
