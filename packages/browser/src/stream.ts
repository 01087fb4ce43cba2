import { protocolError, TidingsError } from './errors.js';
import { tryFetch } from './http.js';
import type { TidingsEnvironment } from './options.js';
import { createSseParser, type SseEvent } from './sse-parser.js';
import { retry, type Step, stepForFailure } from './step.js';

/** What a stream needs from the connection. */
export interface StreamContext {
  url: string;
  fetch: typeof fetch;
  environment: Pick<TidingsEnvironment, 'setTimeout' | 'clearTimeout' | 'now'>;
  /** The last event id to resume from, and to keep counting from. */
  lastEventId: string;
  /** The silence after which the stream counts as dead: 2.5 heartbeats (read on every chunk). */
  watchdogMs: () => number;
  /** Handles one event; a returned step ends the stream (a protocol error in `ready`). */
  onEvent: (event: SseEvent) => Step | undefined;
  onRetry: (milliseconds: number) => void;
  /** Called after each chunk with the parser's last event id. */
  onChunk: (lastEventId: string) => void;
}

/** An open (or opening) stream. */
export interface StreamHandle {
  /** Settles with how the stream ended; never rejects. */
  done: Promise<Step>;
  /** True when nothing arrived for longer than the watchdog allows (timers of a frozen tab lag). */
  isStale(): boolean;
  /** Aborts as stalled, so that the loop reconnects. */
  stall(): void;
  /** Aborts for good; `done` then settles with a step the loop ignores. */
  abort(): void;
}

/**
 * Opens `GET /v1/connect/{token}` with `fetch` and reads it through the SSE parser. `fetch`
 * rather than EventSource, because EventSource hides the HTTP status (401, 403, 429 and its
 * Retry-After, 204) and gives up for good on any non-200. The resume position travels as the
 * `last_event_id` query parameter, not the `Last-Event-ID` header, which is not CORS-safelisted
 * and would add a preflight to every reconnect.
 */
export function openStream(context: StreamContext): StreamHandle {
  const { environment } = context;
  const controller = new AbortController();
  let lastActivityAt = environment.now();
  let stalled = false;
  let sawReady = false;
  let timer: unknown = null;

  const stall = () => {
    stalled = true;
    controller.abort();
  };
  const touch = () => {
    lastActivityAt = environment.now();
    environment.clearTimeout(timer);
    timer = environment.setTimeout(stall, context.watchdogMs());
  };
  /** How a broken stream ends: stalled (the watchdog aborted it), or the `error` it broke with. */
  const broken = (error: TidingsError): Step =>
    stalled
      ? retry(new TidingsError('STREAM_STALLED', `No data for ${context.watchdogMs()} ms`), !sawReady)
      : retry(error);

  const read = async (): Promise<Step> => {
    touch();
    try {
      const response = await tryFetch(context.fetch, context.url, {
        headers: { Accept: 'text/event-stream' },
        signal: controller.signal,
      });
      if (response instanceof TidingsError) return broken(response);
      // Awaited here: the finally below aborts, and the problem body must be read before.
      if (response.status !== 200) return await stepForFailure(response, false);
      if (!/^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
        return retry(protocolError('Not an event stream'));
      }
      if (!response.body) return { kind: 'fallback' };

      let outcome: Step | undefined;
      const parser = createSseParser({
        lastEventId: context.lastEventId,
        onEvent: (event) => {
          if (outcome) return;
          if (event.type === 'ready') sawReady = true;
          outcome = context.onEvent(event);
        },
        onRetry: context.onRetry,
      });
      const reader = response.body.getReader();
      const decoder = new TextDecoder(undefined, { ignoreBOM: true }); // UTF-8; the parser skips the BOM itself
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          touch();
          parser.feed(decoder.decode(value, { stream: true }));
          if (outcome) break;
          context.onChunk(parser.lastEventId);
        }
      } catch (cause) {
        return broken(new TidingsError('NETWORK_ERROR', 'Stream broke', { cause }));
      }
      return outcome ?? retry();
    } finally {
      // Releases the connection whichever way the stream ended, and stops the watchdog.
      controller.abort();
      environment.clearTimeout(timer);
    }
  };

  const done = read();
  return {
    done,
    isStale: () => environment.now() - lastActivityAt > context.watchdogMs(),
    stall,
    abort: () => controller.abort(),
  };
}
