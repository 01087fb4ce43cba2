/** The notification's `url` resolved against the page, if it is http(s); anything else is not opened. */
export function safeUrl(url: string | null, pageUrl: string | undefined): string | null {
  if (!url) return null;
  try {
    const resolved = new URL(url, pageUrl);
    return /^https?:$/.test(resolved.protocol) ? resolved.href : null;
  } catch {
    return null;
  }
}
