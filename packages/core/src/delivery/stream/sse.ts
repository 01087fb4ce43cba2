/** Server-Sent Events framing (WHATWG HTML, "Server-sent events"). */

const encoder = new TextEncoder();

/** One event. `data` is JSON, which never contains a raw line break, so it fits one `data:` line. */
export function sseEvent(event: string, id: string, data: unknown): Uint8Array {
  return sseEventOfJson(event, id, JSON.stringify(data));
}

/** One event whose data is serialized JSON already. */
export function sseEventOfJson(event: string, id: string, json: string): Uint8Array {
  return encoder.encode(`id: ${id}\nevent: ${event}\ndata: ${json}\n\n`);
}

/**
 * An event outside the browser's sequence (an inbox update): no `id:` line, so the client's last
 * event id stays the position of its last notification, and it is never replayed.
 */
export function sseUnsequencedEvent(event: string, json: string): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${json}\n\n`);
}

/** The reconnection time a client should wait, in milliseconds. */
export function sseRetry(ms: number): Uint8Array {
  return encoder.encode(`retry: ${Math.round(ms)}\n\n`);
}

/** A comment line: keeps proxies from closing an idle connection. */
export const SSE_HEARTBEAT = encoder.encode(': ping\n\n');

/** The event id of a browser's stream position: `<browser_id>.<sequence>`. */
export function sseEventId(browserId: string, sequence: number): string {
  return `${browserId}.${sequence}`;
}

/** Parses a resume position (`Last-Event-ID`); null when it is not one of ours. */
export function parseResumePosition(value: string | null): { browserId: string; sequence: number } | null {
  const match = value === null ? null : /^(brw_[0-9a-z]{26})\.(\d{1,15})$/.exec(value.trim());
  if (!match) return null;
  return { browserId: match[1]!, sequence: Number(match[2]) };
}

/** Headers of an event stream: no caching, no transformation, no proxy buffering, no Referer leak. */
export const SSE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  'Content-Encoding': 'identity',
};
