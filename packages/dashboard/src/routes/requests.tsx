/** @jsxImportSource hono/jsx */
import {
  errorCodes,
  type ListRequestsOptions,
  MAX_REQUEST_SEARCH_LENGTH,
  type NotificationObject,
  type RequestLogObject,
  TidingsError,
} from '@tidings/core';
import type { Hono } from 'hono';
import { type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { exportRows, type RequestExportFormat, requestCsvHeader, requestCsvRow } from '../domain/request-export.js';
import { render } from '../render.js';
import { type RequestFilters, RequestPage, RequestsPage } from '../views/request-pages.js';
import { apiUrlOf } from './first-send.js';

const PAGE_SIZE = 25;
/** Entries an export holds at most: a larger one is cut, and says so in its last line or row. */
export const MAX_EXPORT_ENTRIES = 10_000;
/** Entries read from the log per page of an export. */
const EXPORT_PAGE = 100;
const REQUEST_ID = /^req_[0-9a-z]{26}$/;
const KEY_PREFIX = /^sk_(live|test)_[A-Za-z0-9]{4}$/;
const RECIPIENT = /^[A-Za-z0-9_\-.:@]{1,128}$/;
/** A time as the filter's `datetime-local` fields send it (UTC), to the minute or second. */
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z?$/;
/** The codes a refusal of the API can carry, for the code filter. */
export const REQUEST_CODES = (Object.keys(errorCodes) as (keyof typeof errorCodes)[]).filter(
  (code) => !['EMAIL_NOT_VERIFIED', 'PROJECT_LIMIT_REACHED', 'KEY_LIMIT_REACHED'].includes(code),
);

/** A send the API took: its notification holds what it was sent with. */
function isTakenSend(request: RequestLogObject): boolean {
  return request.method === 'POST' && request.path.split('?')[0] === '/v1/notifications' && request.status < 300;
}

/** What a send's body was, as the API stored it (its defaults filled in). */
function sentPayloadOf(notification: NotificationObject) {
  const { recipient, title, body, url, icon, tag, data, ttl } = notification;
  return { recipient, title, body, url, icon, tag, data, ttl };
}

/** A `from` / `to` value as epoch milliseconds (read as UTC), or null when it is none. */
function timeOf(text: string): number | null {
  if (!LOCAL_TIME.test(text)) return null;
  const at = Date.parse(text.endsWith('Z') ? text : `${text}Z`);
  return Number.isNaN(at) ? null : at;
}

/**
 * The filters as the query names them. A status, mode or code that is none of the choices is no
 * filter; a key, recipient or time of the wrong shape is said beside its field (`errors`).
 */
export function filtersOf(query: (name: string) => string | undefined): RequestFilters {
  const status = query('status') ?? '';
  const mode = query('mode') ?? '';
  const code = query('code') ?? '';
  const key = (query('key') ?? '').trim();
  const recipient = (query('recipient') ?? '').trim();
  const from = (query('from') ?? '').trim();
  const to = (query('to') ?? '').trim();
  const errors: RequestFilters['errors'] = {};
  if (key !== '' && !KEY_PREFIX.test(key)) errors.key = 'A key is named by its first 12 characters: sk_live_AbCd.';
  if (recipient !== '' && !RECIPIENT.test(recipient)) {
    errors.recipient = 'A recipient is 1 to 128 of letters, digits and _ - . : @ (no spaces).';
  }
  if (from !== '' && timeOf(from) === null) errors.from = 'Give a date and time, such as 2026-01-10T12:00 (UTC).';
  if (to !== '' && timeOf(to) === null) errors.to = 'Give a date and time, such as 2026-01-10T13:00 (UTC).';
  const fromAt = timeOf(from);
  const toAt = timeOf(to);
  if (fromAt !== null && toAt !== null && fromAt >= toAt) errors.to = 'The end must come after the start.';
  return {
    status: status === '2xx' || status === '4xx' || status === '5xx' ? status : '',
    mode: mode === 'live' || mode === 'test' ? mode : '',
    code: (REQUEST_CODES as string[]).includes(code) ? code : '',
    key,
    recipient,
    from,
    to,
    q: (query('q') ?? '').trim(),
    errors,
  };
}

/** The admin API's options for valid filters. */
function optionsOf(filters: RequestFilters): ListRequestsOptions {
  const from = timeOf(filters.from);
  const to = timeOf(filters.to);
  return {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.mode ? { mode: filters.mode } : {}),
    ...(filters.q ? { search: filters.q } : {}),
    ...(filters.code ? { code: filters.code } : {}),
    ...(filters.key ? { keyPrefix: filters.key } : {}),
    ...(filters.recipient ? { recipient: filters.recipient } : {}),
    ...(from === null ? {} : { from }),
    ...(to === null ? {} : { to }),
  };
}

/** Why the filters cannot be searched: the search too long, or a field's own mistake. */
function refusalOf(filters: RequestFilters): string | null {
  if (filters.q.length > MAX_REQUEST_SEARCH_LENGTH) {
    return `The search is at most ${MAX_REQUEST_SEARCH_LENGTH} characters: an id, an Idempotency-Key or a recipient.`;
  }
  if (Object.keys(filters.errors).length > 0) return 'A filter is not valid: see beside it, correct it, then search.';
  return null;
}

/** A project's request log (docs/dashboard.md#requests): the list, searched, exported, and one request. */
export function registerRequestRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { tidings } = deps;
  const { retentionDays } = tidings.admin.settings.requestLog;

  app.get('/projects/:id/requests', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const filters = filtersOf((name) => c.req.query(name));
    const after = c.req.query('after') ?? '';
    const keys = await tidings.admin.listKeys(project.id);
    const page = { project, filters, keys, codes: REQUEST_CODES, retentionDays, requests: [], nextCursor: null };
    const refused = refusalOf(filters);
    if (refused !== null) return render(c, <RequestsPage {...page} error={refused} />, 400);
    const found = await tidings.admin.listRequests(project.id, {
      limit: PAGE_SIZE,
      ...(REQUEST_ID.test(after) ? { startingAfter: after } : {}),
      ...optionsOf(filters),
    });
    const nextCursor = found.hasMore ? (found.requests.at(-1)?.id ?? null) : null;
    return render(c, <RequestsPage {...page} requests={found.requests} nextCursor={nextCursor} />);
  });

  // The log for the filters, as a file: NDJSON (one request a line, as the admin API answers it)
  // or CSV (its fields, bodies included). Secrets were removed before an entry was stored.
  app.get('/projects/:id/requests/export', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const filters = filtersOf((name) => c.req.query(name));
    const format: RequestExportFormat = c.req.query('format') === 'csv' ? 'csv' : 'ndjson';
    const refused = refusalOf(filters);
    if (refused !== null) throw new TidingsError('VALIDATION_FAILED', refused);
    const options = optionsOf(filters);
    const entries: RequestLogObject[] = [];
    let startingAfter: string | undefined;
    let cut = false;
    for (;;) {
      const found = await tidings.admin.listRequests(project.id, {
        ...options,
        limit: EXPORT_PAGE,
        ...(startingAfter ? { startingAfter } : {}),
      });
      entries.push(...found.requests);
      if (entries.length >= MAX_EXPORT_ENTRIES) {
        cut = found.hasMore || entries.length > MAX_EXPORT_ENTRIES;
        entries.length = Math.min(entries.length, MAX_EXPORT_ENTRIES);
        break;
      }
      if (!found.hasMore) break;
      startingAfter = found.requests.at(-1)?.id;
    }
    const body =
      format === 'csv'
        ? [requestCsvHeader(), ...entries.map(requestCsvRow), ...exportRows(format, cut)].join('\r\n')
        : [...entries.map((entry) => JSON.stringify(entry)), ...exportRows(format, cut)].join('\n');
    const stamp = new Date(tidings.admin.settings.clock.now()).toISOString().replace(/[:.]/g, '-');
    return c.body(`${body}\n`, 200, {
      'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="requests-${project.id}-${stamp}.${format === 'csv' ? 'csv' : 'ndjson'}"`,
    });
  });

  app.get('/projects/:id/requests/:requestId', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const request = await tidings.admin.getRequest(project.id, c.req.param('requestId')).catch((error: unknown) => {
      if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
      throw error;
    });
    if (!request) throw new TidingsError('NOT_FOUND', 'No such request in this project, or it is past its retention');
    // A taken send keeps no body: its notification holds the payload it was sent with.
    const sent = request.request_body === null && isTakenSend(request) ? request.notification_ids[0] : undefined;
    const notification = sent
      ? await tidings.admin.getNotification(project.id, sent).catch((error: unknown) => {
          if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
          throw error;
        })
      : null;
    const payload = notification ? JSON.stringify(sentPayloadOf(notification)) : null;
    return render(
      c,
      <RequestPage project={project} request={request} apiUrl={apiUrlOf(c, deps)} sentPayload={payload} />,
    );
  });
}
