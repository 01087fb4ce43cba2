/** @jsxImportSource hono/jsx */
import { type ApiKeyObject, type ProjectObject, READ_COUNT_PATH, type RequestLogObject } from '@tidings/core';
import { requestAsCurl } from '../domain/request-export.js';
import { Clip } from './clip.js';
import { DataTable } from './data-table.js';
import { Field, Notice, Time, usePage } from './layout.js';
import { ModeFilter } from './log-pages.js';
import { ProjectFrame } from './project-frame.js';

/** The filters of the Requests page, as the query carries them. */
export interface RequestFilters {
  status: '' | '2xx' | '4xx' | '5xx';
  mode: '' | 'live' | 'test';
  /** A problem code, such as `NO_CONNECTED_BROWSER`. */
  code: string;
  /** A key's prefix, its first 12 characters. */
  key: string;
  recipient: string;
  /** UTC date and time, as `datetime-local` sends it. */
  from: string;
  to: string;
  /** One search text: a request id, a notification id, an Idempotency-Key or a recipient. */
  q: string;
  /** A field's own mistake, by field. */
  errors: Partial<Record<'key' | 'recipient' | 'from' | 'to', string>>;
}

/** The query of the filters given (without the cursor), for links that keep them. */
export function filterQuery(filters: RequestFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ['q', 'status', 'mode', 'code', 'key', 'recipient', 'from', 'to'] as const) {
    if (filters[name]) params.set(name, filters[name]);
  }
  return params;
}

/** What a count of successful reads says: how many, between when and when, of which notifications. */
export interface ReadCountSummary {
  reads: number;
  firstAt: string;
  lastAt: string;
  notificationIds: string[];
  unnamed: number;
}

/** The count of reads an entry keeps, or null when it is a request of its own. */
export function readCountOf(
  request: Pick<RequestLogObject, 'path' | 'status' | 'response_body'>,
): ReadCountSummary | null {
  if (request.path !== READ_COUNT_PATH || request.status !== 200) return null;
  try {
    const body = JSON.parse(request.response_body?.text ?? '') as Record<string, unknown>;
    if (body.object !== 'read_count' || typeof body.reads !== 'number') return null;
    return {
      reads: body.reads,
      firstAt: String(body.first_at),
      lastAt: String(body.last_at),
      notificationIds: Array.isArray(body.notification_ids) ? body.notification_ids.map(String) : [],
      unnamed: typeof body.reads_of_unnamed_notifications === 'number' ? body.reads_of_unnamed_notifications : 0,
    };
  } catch {
    return null;
  }
}

/** Which limit a 429 met, or that a 401's key was revoked, read from the problem it answered. */
export function refusalNote(request: Pick<RequestLogObject, 'code' | 'response_body' | 'status'>): string | null {
  if (request.code !== 'RATE_LIMITED' && request.code !== 'UNAUTHORIZED') return null;
  let detail = '';
  try {
    const parsed = JSON.parse(request.response_body?.text ?? '') as { detail?: unknown };
    if (typeof parsed.detail === 'string') detail = parsed.detail;
  } catch {
    // Not JSON: said from the code alone below.
  }
  if (request.code === 'UNAUTHORIZED') {
    // Only a known key's requests are a project's to log: a 401 here is a revoked key's.
    return 'revoked key';
  }
  const scopes = [...detail.matchAll(/this (API key|project|account|IP address)/g)].map((match) =>
    match[1] === 'API key' ? 'key' : match[1] === 'IP address' ? 'IP' : match[1],
  );
  return scopes.length > 0 ? `${[...new Set(scopes)].join(' and ')} limit` : 'a rate limit';
}

/** A status as a badge: a success plain, a refusal or a failure in the danger colour. */
function StatusBadge(props: { status: number }) {
  return <span class={props.status >= 400 ? 'badge danger' : 'badge ok'}>{props.status}</span>;
}

/** A duration for people: `3.2 ms`, `41 ms`, `1.24 s`. */
function formatDuration(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

const STATUS_OPTIONS = [
  ['', 'every status'],
  ['2xx', '2xx, accepted'],
  ['4xx', '4xx, refused'],
  ['5xx', '5xx, failed'],
] as const;

/** The project's API requests, newest first, filtered, searched and paged by cursor. */
export function RequestsPage(props: {
  project: ProjectObject;
  requests: RequestLogObject[];
  filters: RequestFilters;
  /** The project's keys, for the key filter (revoked ones too). */
  keys: ApiKeyObject[];
  /** The codes the code filter offers. */
  codes: readonly string[];
  nextCursor: string | null;
  retentionDays: number;
  /** Why the search was refused, when it was. */
  error?: string;
}) {
  const ctx = usePage();
  const { project, filters } = props;
  const root = `${ctx.base}/projects/${project.id}`;
  const next = (cursor: string) => {
    const params = filterQuery(filters);
    params.set('after', cursor);
    return `${root}/requests?${params}`;
  };
  const exportHref = (format: 'ndjson' | 'csv') => {
    const params = filterQuery(filters);
    params.set('format', format);
    return `${root}/requests/export?${params}`;
  };
  const filtered = filterQuery(filters).size > 0;
  return (
    <ProjectFrame project={project} tab="requests" title="Requests">
      <h2>Requests</h2>
      <p class="muted">
        Every request made with this project’s API keys, accepted or refused, newest first: what was sent and what was
        answered, keys and tokens removed. Kept {props.retentionDays} days. A key that is none of this project’s (a
        typo) names no project, so its requests are not here.
      </p>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <form method="get" action={`${root}/requests`} class="row-form filters request-filters">
        <div class="field">
          <label for="filter-q">Request id, notification id, Idempotency-Key or recipient</label>
          <input id="filter-q" name="q" value={filters.q} maxlength={255} autocomplete="off" spellcheck={false} />
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status">
            {STATUS_OPTIONS.map(([value, label]) => (
              <option value={value} selected={filters.status === value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-code">Error code</label>
          <select id="filter-code" name="code">
            <option value="" selected={filters.code === ''}>
              any code
            </option>
            {props.codes.map((code) => (
              <option value={code} selected={filters.code === code}>
                {code}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-key">Key</label>
          <select id="filter-key" name="key" aria-invalid={filters.errors.key ? 'true' : undefined}>
            <option value="" selected={filters.key === ''}>
              any key
            </option>
            {props.keys.map((key) => (
              <option value={key.prefix} selected={filters.key === key.prefix}>
                {key.prefix}… {key.name ?? ''}
                {key.status === 'revoked' ? ' (revoked)' : ''}
              </option>
            ))}
            {filters.key && !props.keys.some((key) => key.prefix === filters.key) ? (
              <option value={filters.key} selected>
                {filters.key}…
              </option>
            ) : null}
          </select>
          {filters.errors.key ? <p class="field-error">{filters.errors.key}</p> : null}
        </div>
        <Field
          label="Recipient"
          name="recipient"
          id="filter-recipient"
          value={filters.recipient}
          required={false}
          error={filters.errors.recipient}
        />
        <ModeFilter mode={filters.mode} />
        <Field
          label="From (UTC)"
          name="from"
          id="filter-from"
          type="datetime-local"
          value={filters.from}
          required={false}
          error={filters.errors.from}
        />
        <Field
          label="To (UTC)"
          name="to"
          id="filter-to"
          type="datetime-local"
          value={filters.to}
          required={false}
          error={filters.errors.to}
        />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      <p class="export-links">
        Export {filtered ? 'these requests' : 'the log'}:{' '}
        <a href={exportHref('ndjson')} data-export="ndjson" download>
          NDJSON
        </a>{' '}
        ·{' '}
        <a href={exportHref('csv')} data-export="csv" download>
          CSV
        </a>{' '}
        <span class="muted">(newest first, at most 10000; no key or token is in it)</span>
      </p>
      {props.requests.length === 0 ? (
        <p class="empty">No requests{filtered ? ' match this search' : ' yet'}.</p>
      ) : (
        <DataTable
          label="Requests"
          columns={['Time', 'Request', 'Status', 'Mode', 'Key', 'Recipient', { label: 'Duration', num: true }]}
        >
          {props.requests.map((request) => {
            const note = refusalNote(request);
            const counted = readCountOf(request);
            return (
              <tr data-request-id={request.id}>
                <td>
                  <Time at={request.created_at} precise />
                </td>
                <td>
                  <Clip text={`${request.method} ${request.path}`} href={`${root}/requests/${request.id}`} code />
                </td>
                <td>
                  <StatusBadge status={request.status} />
                  {request.code ? <code class="muted"> {request.code}</code> : null}
                  {note ? <span class="refusal-note"> · {note}</span> : null}
                  {counted ? (
                    <span class="refusal-note" data-reads={counted.reads}>
                      {' '}
                      · {counted.reads} {counted.reads === 1 ? 'read' : 'reads'} counted
                    </span>
                  ) : null}
                </td>
                <td>
                  <span class={`badge ${request.mode}`}>{request.mode}</span>
                </td>
                <td data-field="key">
                  <code>{request.key_prefix}…</code>
                </td>
                <td data-field="recipient">
                  {request.recipient === null ? <span class="muted">—</span> : <Clip text={request.recipient} code />}
                </td>
                <td class="num">{formatDuration(request.duration_ms)}</td>
              </tr>
            );
          })}
        </DataTable>
      )}
      {props.nextCursor ? (
        <p>
          <a href={next(props.nextCursor)} rel="next">
            Older requests
          </a>
        </p>
      ) : null}
    </ProjectFrame>
  );
}

/** A body pretty-printed when it is whole JSON, else as it was kept. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** One body of a request: its text in a frame that scrolls, and a word when it was cut or is none. */
function Body(props: { id: string; title: string; body: RequestLogObject['request_body']; none: string }) {
  return (
    <>
      <h3 id={props.id}>{props.title}</h3>
      {props.body === null ? (
        <p class="muted">{props.none}</p>
      ) : (
        <>
          {props.body.truncated ? <p class="muted">Cut at 16 KiB: only its beginning is kept.</p> : null}
          <section class="payload" tabindex={0} aria-labelledby={props.id} data-body={props.id}>
            <pre>
              <code>{pretty(props.body.text)}</code>
            </pre>
          </section>
        </>
      )}
    </>
  );
}

/** The request again as a `curl` command, with a button that copies it (with JavaScript). */
function CopyAsCurl(props: { request: RequestLogObject; apiUrl: string }) {
  const { request } = props;
  return (
    <>
      <h3 id="curl-title">Copy as curl</h3>
      <p class="muted">
        The request again, for a terminal: the key is <code>$TIDINGS_API_KEY</code>, never one of yours (set it first),
        and a token or secret the body held is <code>[redacted]</code>
        {request.request_body?.truncated ? '; the body was cut at 16 KiB, so this one is cut too' : ''}.
      </p>
      <div class="secret-row">
        <section class="payload" tabindex={0} aria-labelledby="curl-title">
          <pre>
            <code id="request-curl" data-field="curl">
              {requestAsCurl(request, props.apiUrl)}
            </code>
          </pre>
        </section>
        <button type="button" class="copy" data-copy-command="request-curl" hidden>
          Copy
        </button>
      </div>
      <p class="hint" id="copy-status" role="status" aria-live="polite" />
    </>
  );
}

/** One request, for debugging it: everything the log keeps of it. */
export function RequestPage(props: {
  project: ProjectObject;
  request: RequestLogObject;
  apiUrl: string;
  /** A taken send's payload as its notification keeps it (JSON), in place of the body it does not keep. */
  sentPayload?: string | null;
}) {
  const ctx = usePage();
  const { project } = props;
  const sentBody = props.sentPayload ? { text: props.sentPayload, truncated: false } : null;
  const request =
    sentBody && props.request.request_body === null ? { ...props.request, request_body: sentBody } : props.request;
  const root = `${ctx.base}/projects/${project.id}`;
  const note = refusalNote(request);
  const counted = readCountOf(request);
  return (
    <ProjectFrame project={project} tab="requests" title="Request">
      <p>
        <a href={`${root}/requests`}>← Requests</a>
      </p>
      <h2>
        <code>
          {request.method} {request.path}
        </code>
      </h2>
      <dl class="facts">
        <dt>Request id</dt>
        <dd data-field="request-id">
          <code>{request.id}</code>
        </dd>
        <dt>Time</dt>
        <dd>
          <Time at={request.created_at} precise />
        </dd>
        <dt>Status</dt>
        <dd data-field="status">
          <StatusBadge status={request.status} />
          {request.code ? <code> {request.code}</code> : null}
          {note ? <span class="refusal-note"> · {note}</span> : null}
        </dd>
        <dt>Duration</dt>
        <dd>{formatDuration(request.duration_ms)}</dd>
        <dt>Mode</dt>
        <dd>
          <span class={`badge ${request.mode}`}>{request.mode}</span>
        </dd>
        <dt>Key</dt>
        <dd data-field="key">
          <code>{request.key_prefix}…</code>
        </dd>
        <dt>Idempotency-Key</dt>
        <dd data-field="idempotency-key">
          {request.idempotency_key === null ? <span class="muted">none</span> : <code>{request.idempotency_key}</code>}
        </dd>
        <dt>Recipient</dt>
        <dd data-field="recipient">
          {request.recipient === null ? (
            <span class="muted">none</span>
          ) : (
            <a href={`${root}/requests?${new URLSearchParams({ recipient: request.recipient })}`}>
              <code>{request.recipient}</code>
            </a>
          )}
        </dd>
        <dt>Notifications</dt>
        <dd data-field="notifications">
          {request.notification_ids.length === 0 ? (
            <span class="muted">none</span>
          ) : (
            request.notification_ids.map((id, index) => (
              <>
                {index > 0 ? ', ' : null}
                <a href={`${root}/notifications/${id}`}>
                  <code>{id}</code>
                </a>
              </>
            ))
          )}
        </dd>
      </dl>
      {counted ? (
        <section class="card" data-field="read-count">
          <h3>Reads counted</h3>
          <p>
            {counted.reads} successful {counted.reads === 1 ? 'read' : 'reads'} of notifications with this key, from{' '}
            <Time at={counted.firstAt} precise /> to <Time at={counted.lastAt} precise />. Successful reads (
            <code>GET /v1/notifications/{'{id}'}</code> answered 200) are counted, not kept one by one: pollers read a
            send many times, and keeping each would cost a read half as much again. Refused reads are kept one by one.
            {counted.unnamed > 0
              ? ` The notifications linked above are the first ${counted.notificationIds.length}; ${counted.unnamed} more reads were of others.`
              : ''}
          </p>
        </section>
      ) : (
        <CopyAsCurl request={request} apiUrl={props.apiUrl} />
      )}
      {sentBody ? (
        <p class="muted" data-field="sent-payload">
          A taken send keeps no body in the log: its notification does. Shown below is its payload as the API stored it,
          defaults filled in.
        </p>
      ) : null}
      <Body id="request-body" title="Request body" body={request.request_body} none="No body, or none was read." />
      <Body
        id="response-body"
        title="Answer body"
        body={request.response_body}
        none={
          request.method === 'POST' && request.status < 300 && request.notification_ids.length > 0
            ? 'Not kept: the answer of a taken send is the notification, which its page (linked above) shows as it is now.'
            : 'No body.'
        }
      />
    </ProjectFrame>
  );
}
