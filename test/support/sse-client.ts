import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { conformanceChecker } from './openapi-conformance.js';

/** Reads an event stream through a spec-compliant parser, so tests see what a browser would. */
export function readEvents(response: Response) {
  if (!response.body) throw new Error('no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const events: EventSourceMessage[] = [];
  const eventIssues: string[] = [];
  const comments: string[] = [];
  let retry: number | null = null;
  let ended = false;
  const waiters = new Set<() => void>();
  const parser = createParser({
    onEvent: (event) => {
      // Every event a test sees is checked against the document's schema of its data.
      const issues = conformanceChecker().checkEvent(event.event ?? 'message', event.data);
      if (issues.length > 0) eventIssues.push(...issues);
      events.push(event);
      for (const wake of waiters) wake();
    },
    onComment: (comment) => {
      comments.push(comment);
      for (const wake of waiters) wake();
    },
    onRetry: (ms) => {
      retry = ms;
    },
  });
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // An errored stream ends like a dropped connection.
    }
    ended = true;
    for (const wake of waiters) wake();
  })();

  /** Waits until `predicate` holds, or fails after `timeoutMs`. */
  async function until(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (eventIssues.length > 0)
        throw new Error(`an event does not conform to the document: ${eventIssues.join('; ')}`);
      if (predicate()) return;
      if (ended) throw new Error(`stream ended first; events: ${events.map((e) => e.event).join(',')}`);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('timed out waiting on the stream');
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, remaining);
        waiters.add(wake);
      });
    }
  }

  return {
    events,
    comments,
    get retry() {
      return retry;
    },
    get ended() {
      return ended;
    },
    /** Waits for the n-th event (1-based) of a type and returns it. */
    async next(type: string, count = 1) {
      await until(() => events.filter((e) => e.event === type).length >= count);
      return events.filter((e) => e.event === type)[count - 1]!;
    },
    until,
    /** Waits for the stream to end. */
    async end(timeoutMs = 2000) {
      await Promise.race([
        pump,
        new Promise((_, reject) => setTimeout(() => reject(new Error('did not end')), timeoutMs)),
      ]);
    },
    cancel: () => reader.cancel(),
  };
}
