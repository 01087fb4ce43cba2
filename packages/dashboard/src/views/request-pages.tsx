/** @jsxImportSource hono/jsx */
import type { ProjectObject, RequestLogObject } from '@tidings/core';
import { Clip } from './clip.js';
import { DataTable } from './data-table.js';
import { Notice, Time, usePage } from './layout.js';
import { ModeFilter } from './log-pages.js';
import { ProjectFrame } from './project-frame.js';

/** The filters of the Requests page, as the query carries them. */
export interface RequestFilters {
  status: '' | '2xx' | '4xx' | '5xx';
  mode: '' | 'live' | 'test';
  /** One search text: a request id, a notification id, an Idempotency-Key or a recipient. */
  q: string;
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
  nextCursor: string | null;
  retentionDays: number;
  /** Why the search was refused, when it was. */
  error?: string;
}) {
  const ctx = usePage();
  const { project, filters } = props;
  const root = `${ctx.base}/projects/${project.id}`;
  const next = (cursor: string) => {
    const params = new URLSearchParams();
    if (filters.status) params.set('status', filters.status);
    if (filters.mode) params.set('mode', filters.mode);
    if (filters.q) params.set('q', filters.q);
    params.set('after', cursor);
    return `${root}/requests?${params}`;
  };
  const filtered = filters.status !== '' || filters.mode !== '' || filters.q !== '';
  return (
    <ProjectFrame project={project} tab="requests" title="Requests">
      <h2>Requests</h2>
      <p class="muted">
        Every request made with this project’s API keys, accepted or refused, newest first: what was sent and what was
        answered, keys and tokens removed. Kept {props.retentionDays} days.
      </p>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <form method="get" action={`${root}/requests`} class="row-form filters">
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
        <ModeFilter mode={filters.mode} />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {props.requests.length === 0 ? (
        <p class="empty">No requests{filtered ? ' match this search' : ' yet'}.</p>
      ) : (
        <DataTable
          label="Requests"
          columns={['Time', 'Request', 'Status', 'Mode', 'Key', 'Recipient', { label: 'Duration', num: true }]}
        >
          {props.requests.map((request) => (
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
              </td>
              <td>
                <span class={`badge ${request.mode}`}>{request.mode}</span>
              </td>
              <td>
                {request.recipient === null ? <span class="muted">—</span> : <Clip text={request.recipient} code />}
              </td>
              <td class="num">{formatDuration(request.duration_ms)}</td>
            </tr>
          ))}
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

/** One request, for debugging it: everything the log keeps of it. */
export function RequestPage(props: { project: ProjectObject; request: RequestLogObject }) {
  const ctx = usePage();
  const { project, request } = props;
  const root = `${ctx.base}/projects/${project.id}`;
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
          {request.recipient === null ? <span class="muted">none</span> : <code>{request.recipient}</code>}
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
      <Body id="request-body" title="Request body" body={request.request_body} none="No body, or none was read." />
      <Body id="response-body" title="Answer body" body={request.response_body} none="No body." />
    </ProjectFrame>
  );
}
