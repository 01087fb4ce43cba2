/**
 * The addresses of a recipient's and a browser's pages, shared by the server's pages and the
 * scripts that draw links (the live view).
 */

/**
 * The page of a recipient of the project at `root`. Its id goes in the path, percent-encoded;
 * `.` and `..` cannot (a URL reads them as "this" and "the parent" folder, encoded or not), so
 * those two are looked up by query instead, which shows the same page.
 */
export function recipientHref(root: string, recipient: string): string {
  return recipient === '.' || recipient === '..'
    ? `${root}/recipients?recipient=${encodeURIComponent(recipient)}`
    : `${root}/recipients/${encodeURIComponent(recipient)}`;
}

/** The page of a browser of the project at `root`. */
export function browserHref(root: string, browserId: string): string {
  return `${root}/browsers/${encodeURIComponent(browserId)}`;
}
