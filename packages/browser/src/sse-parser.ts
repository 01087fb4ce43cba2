/** One dispatched Server-Sent Event. */
export interface SseEvent {
  /** The `event:` field, or `message` when none was given. */
  type: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last event id at dispatch time (it persists across events, as in EventSource). */
  id: string;
}

/** Callbacks of {@link createSseParser}. */
export interface SseParserOptions {
  onEvent: (event: SseEvent) => void;
  /** A valid `retry:` field, in milliseconds. */
  onRetry?: (milliseconds: number) => void;
  /**
   * The last event id to start from, as an EventSource keeps it across reconnects.
   * @default ''
   */
  lastEventId?: string;
}

/** An incremental parser of a decoded `text/event-stream`. */
export interface SseParser {
  /** Feeds the next piece of decoded text; a piece may end anywhere, even between CR and LF. */
  feed(text: string): void;
  /** The last event id, updated when an event block is dispatched (even one without data). */
  readonly lastEventId: string;
}

/**
 * Creates a parser that follows the WHATWG rules for `text/event-stream`: CRLF, CR and LF line
 * endings, one leading BOM skipped, comments, a field without a colon, `id` with NUL ignored,
 * `retry` of ASCII digits only, and an unterminated block at the end discarded (by never
 * being dispatched).
 */
export function createSseParser(options: SseParserOptions): SseParser {
  let pending = '';
  let started = false;
  let skipLineFeed = false;
  let data = '';
  let eventType = '';
  let idBuffer = options.lastEventId ?? '';
  let lastEventId = idBuffer;

  const processLine = (line: string) => {
    if (line === '') {
      lastEventId = idBuffer;
      const event = data && { type: eventType || 'message', data: data.slice(0, -1), id: lastEventId };
      data = '';
      eventType = '';
      if (event) options.onEvent(event);
      return;
    }
    // The field up to the first colon (the whole line without one), the value after it and one space.
    // A comment (a heartbeat) is a line that starts with a colon: its field is empty, and ignored.
    const [, field, value] = /^([^:]*):? ?(.*)/s.exec(line)!;
    if (field === 'event') eventType = value!;
    else if (field === 'data') data += `${value}\n`;
    else if (field === 'id') {
      if (!value!.includes('\0')) idBuffer = value!;
    } else if (field === 'retry' && /^\d+$/.test(value!)) options.onRetry?.(Number(value));
  };

  return {
    get lastEventId() {
      return lastEventId;
    },
    feed(text) {
      if (text === '') return;
      if (!started) {
        started = true;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      // A CR ended the previous piece: an LF opening this one belongs to the same line break.
      if (skipLineFeed && text[0] === '\n') text = text.slice(1);
      skipLineFeed = text.endsWith('\r');
      const lines = (pending + text).split(/\r\n?|\n/);
      pending = lines.pop() ?? '';
      for (const line of lines) processLine(line);
    },
  };
}
