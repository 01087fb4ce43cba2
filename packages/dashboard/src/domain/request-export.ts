import type { RequestLogObject } from '@tidings/core';

/** The formats the request log exports to. */
export type RequestExportFormat = 'ndjson' | 'csv';

/** The columns of a CSV export, in order: every field of a request, its bodies last. */
const CSV_COLUMNS = [
  'id',
  'created_at',
  'method',
  'path',
  'status',
  'code',
  'mode',
  'key_prefix',
  'idempotency_key',
  'recipient',
  'notification_ids',
  'duration_ms',
  'request_body',
  'response_body',
] as const;

/** A cell that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, a tab or a return first). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, its quotes
 * doubled. A text a spreadsheet would run as a formula starts with an apostrophe, so that opening
 * an export never runs what a client sent (OWASP's advice for CSV injection).
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The header line of a CSV export. */
export function requestCsvHeader(): string {
  return CSV_COLUMNS.join(',');
}

/** A request as a line of a CSV export. */
export function requestCsvRow(request: RequestLogObject): string {
  const cells: Record<(typeof CSV_COLUMNS)[number], string | number | null> = {
    id: request.id,
    created_at: request.created_at,
    method: request.method,
    path: request.path,
    status: request.status,
    code: request.code,
    mode: request.mode,
    key_prefix: request.key_prefix,
    idempotency_key: request.idempotency_key,
    recipient: request.recipient,
    notification_ids: request.notification_ids.join(' '),
    duration_ms: request.duration_ms,
    request_body: request.request_body?.text ?? null,
    response_body: request.response_body?.text ?? null,
  };
  return CSV_COLUMNS.map((column) => csvField(cells[column])).join(',');
}

/** The line that ends an export cut at its maximum, saying so; none for a whole one. */
export function exportRows(format: RequestExportFormat, cut: boolean): string[] {
  if (!cut) return [];
  const note = 'cut: the export holds the newest 10000 requests of these filters; narrow the time range for the rest';
  return format === 'csv' ? [csvField(`# ${note}`)] : [JSON.stringify({ object: 'export_cut', note })];
}

/** A text as one word of a POSIX shell: in single quotes, each quote it holds closed and escaped. */
export function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The request again as a `curl` command, for a terminal: its method, its URL at `apiUrl`, its
 * Idempotency-Key, and its body as the log kept it. The key is `$TIDINGS_API_KEY`, never a key:
 * the log keeps only the key's prefix, and a copied command must not carry a secret. Tokens and
 * secrets of the body and path were replaced (`[redacted]`) before the entry was stored.
 */
export function requestAsCurl(request: RequestLogObject, apiUrl: string): string {
  const lines = [`curl -X ${request.method} ${shellWord(`${apiUrl}${request.path}`)}`];
  lines.push(`-H "Authorization: Bearer $TIDINGS_API_KEY"`);
  if (request.idempotency_key !== null) lines.push(`-H ${shellWord(`Idempotency-Key: ${request.idempotency_key}`)}`);
  if (request.request_body !== null && request.method !== 'GET') {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`--data-raw ${shellWord(request.request_body.text)}`);
  }
  return lines.join(' \\\n  ');
}
