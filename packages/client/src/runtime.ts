/**
 * True in a web page: a `window` with a `document`. Node.js, Bun, Deno (2 has no `window`, 1 has
 * no `document`), Cloudflare Workers, Vercel Edge and web workers have no such pair.
 */
export function isBrowserPage(scope: object = globalThis): boolean {
  const { window, document } = scope as { window?: unknown; document?: unknown };
  return typeof window === 'object' && window !== null && typeof document === 'object' && document !== null;
}

/** A v4 UUID: `crypto.randomUUID` where it exists (it needs a secure context in a page). */
export function randomUuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Resolves after `milliseconds`, or rejects with the signal's reason once it aborts. */
export function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
