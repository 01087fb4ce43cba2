/** @jsxImportSource hono/jsx */
import type {
  ProjectObject,
  WebhookEndpointObject,
  WebhookMessageAttemptObject,
  WebhookMessageObject,
} from '@tidings/core';
import type { FormState } from './auth-pages.js';
import { Clip } from './clip.js';
import { DataTable } from './data-table.js';
import { Field, Notice, Time, usePage } from './layout.js';
import { ProjectFrame } from './project-frame.js';
import { RecipientLink } from './recipient-links.js';
import { ButtonForm, endpointPath } from './webhook-pages.js';

/** A message's states, in the order of the status filter. */
export const WEBHOOK_MESSAGE_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** One message to an endpoint, as `tidings.admin.listWebhookMessages` answers it. */
export type WebhookMessageView = WebhookMessageObject;
/** One request of a message to its endpoint. */
export type WebhookMessageAttemptView = WebhookMessageAttemptObject;

/** The event types a message can have, for the list's filter. */
export const WEBHOOK_MESSAGE_EVENT_TYPES = [
  'notification.attempt.updated',
  'notification.completed',
  'notification.read',
  'notification.unread',
  'browser.connected',
  'browser.disconnected',
  'webhook.test',
] as const;

/** The messages list's filters, as the query carries them. */
export interface MessageFilters {
  status: '' | (typeof WEBHOOK_MESSAGE_STATUSES)[number];
  /** `event_type`: one of {@link WEBHOOK_MESSAGE_EVENT_TYPES}, or '' for any. */
  eventType?: string;
  /** `notification`: a notification id. */
  notification?: string;
  recipient?: string;
  /** A field's own mistake, by field. */
  errors?: Partial<Record<'notification' | 'recipient', string>>;
}

/** The query of the filters given, for links that keep them. */
function messageFilterQuery(filters: MessageFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.status) params.set('status', filters.status);
  if (filters.eventType) params.set('event_type', filters.eventType);
  if (filters.notification) params.set('notification', filters.notification);
  if (filters.recipient) params.set('recipient', filters.recipient);
  return params;
}

const STATUS_BADGES: Record<WebhookMessageView['status'], string> = {
  pending: 'badge',
  delivered: 'badge status-delivered',
  failed: 'badge status-failed',
};

function MessageStatus(props: { status: WebhookMessageView['status'] }) {
  return <span class={STATUS_BADGES[props.status] ?? 'badge'}>{props.status}</span>;
}

/** How a request ended, in the words that explain it: `HTTP 500`, `a timeout`, `refused: private address`. */
export function attemptOutcomeText(attempt: Pick<WebhookMessageAttemptView, 'status_code' | 'outcome' | 'error'>) {
  if (attempt.status_code !== null) return `HTTP ${attempt.status_code}`;
  if (attempt.outcome === 'timeout') return 'a timeout';
  if (attempt.outcome === 'network') return `a network error${attempt.error ? ` (${attempt.error})` : ''}`;
  return attempt.error ? `${attempt.outcome}: ${attempt.error}` : attempt.outcome;
}

/** What a message is about, read from its payload: its notification, its recipient, its browser. */
export function messageSubject(payload: unknown): {
  notificationId: string | null;
  recipient: string | null;
  browserId: string | null;
} {
  const data = (payload as { data?: Record<string, unknown> } | null)?.data;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  const isNotification = text(data?.object) === 'notification';
  return {
    notificationId: text(data?.notification_id) ?? (isNotification ? text(data?.id) : null),
    recipient: text(data?.recipient),
    browserId: text(data?.browser_id),
  };
}

/** The endpoint's messages, newest first, filtered by status and paged by cursor. */
export function MessagesSection(props: {
  endpoint: WebhookEndpointObject;
  messages: WebhookMessageView[];
  filters: MessageFilters;
  nextCursor: string | null;
  replay: FormState;
  /** The first page: it refreshes itself. */
  live: boolean;
}) {
  const ctx = usePage();
  const { endpoint, filters } = props;
  const path = endpointPath(ctx.base, endpoint);
  const root = `${ctx.base}/projects/${endpoint.project_id}`;
  const next = (cursor: string) => {
    const params = messageFilterQuery(filters);
    params.set('before', cursor);
    return `${path}?${params}#messages`;
  };
  const filtered = messageFilterQuery(filters).size > 0;
  const onlyStatus = filtered && messageFilterQuery({ ...filters, status: '' }).size === 0;
  // The pending messages of this page by what orders them: a message with an older one of its
  // notification (or browser) still pending waits behind it.
  const orderOf = (message: WebhookMessageView) => {
    const subject = messageSubject(message.payload);
    return subject.notificationId ?? subject.browserId ?? message.id;
  };
  return (
    <>
      <h3 id="messages">Messages</h3>
      <p class="muted">
        Each event sent to this endpoint, newest first, kept 30 days. Open one to see its payload and each request. The
        first page keeps itself up to date.
      </p>
      <form method="get" action={`${path}#messages`} class="row-form filters">
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status">
            <option value="" selected={filters.status === ''}>
              any
            </option>
            {WEBHOOK_MESSAGE_STATUSES.map((status) => (
              <option value={status} selected={filters.status === status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-event-type">Event</label>
          <select id="filter-event-type" name="event_type">
            <option value="" selected={!filters.eventType}>
              any event
            </option>
            {WEBHOOK_MESSAGE_EVENT_TYPES.map((type) => (
              <option value={type} selected={filters.eventType === type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <Field
          label="Notification id"
          name="notification"
          id="filter-notification"
          value={filters.notification}
          required={false}
          error={filters.errors?.notification}
        />
        <Field
          label="Recipient"
          name="recipient"
          id="filter-message-recipient"
          value={filters.recipient}
          required={false}
          error={filters.errors?.recipient}
        />
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {/* The first page refreshes itself (dashboard.js) while it is shown: new messages and new states appear. */}
      <div id="message-list" data-refresh-ms={props.live ? '5000' : undefined}>
        {props.messages.length === 0 ? (
          <p class="empty">
            No messages
            {!filtered ? ' yet' : onlyStatus ? ` ${filters.status}` : ' match these filters'}.
          </p>
        ) : (
          <DataTable
            label="Messages"
            columns={['Created', 'Event', 'Notification', 'Recipient', 'Status', 'Attempts', 'Next attempt']}
          >
            {props.messages.map((message) => {
              const subject = messageSubject(message.payload);
              const older = props.messages.find(
                (other) =>
                  other.status === 'pending' &&
                  other.id < message.id &&
                  orderOf(other) === orderOf(message) &&
                  message.status === 'pending',
              );
              const queued = message.status === 'pending' && older !== undefined;
              return (
                <tr data-message-id={message.id} data-status={message.status}>
                  <td>
                    <a href={`${path}/messages/${message.id}`}>
                      <Time at={message.created_at} />
                    </a>
                  </td>
                  <td>
                    <code>{message.event_type}</code>
                  </td>
                  <td data-field="notification">
                    {subject.notificationId === null ? (
                      <span class="muted">—</span>
                    ) : (
                      <Clip
                        text={subject.notificationId}
                        href={`${root}/notifications/${subject.notificationId}`}
                        code
                      />
                    )}
                  </td>
                  <td data-field="recipient">
                    {subject.recipient === null ? (
                      <span class="muted">—</span>
                    ) : (
                      <RecipientLink root={root} recipient={subject.recipient} />
                    )}
                  </td>
                  <td>
                    <MessageStatus status={message.status} />
                    {message.status === 'pending' && message.attempts > 0 ? <span class="muted"> retrying</span> : null}
                  </td>
                  <td class="num">{message.attempts}</td>
                  <td>
                    {queued ? (
                      <span class="muted" data-waiting-behind={older!.id}>
                        after an older message of its {subject.notificationId ? 'notification' : 'browser'}
                      </span>
                    ) : message.next_attempt_at === null ? (
                      <span class="muted">—</span>
                    ) : (
                      <Time at={message.next_attempt_at} />
                    )}
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
        {props.nextCursor ? (
          <p>
            <a href={next(props.nextCursor)} rel="next">
              Older messages
            </a>
          </p>
        ) : null}
      </div>
      <section class="card">
        <h3>Replay</h3>
        <p class="muted">
          Sends again, in order and with their ids, every message of this endpoint created since a time: delivered and
          failed ones again, and those waiting for a retry at once. For after your receiver was down or lost what it
          received.
        </p>
        {props.replay.message ? <Notice kind="error">{props.replay.message}</Notice> : null}
        <form method="post" action={`${path}/replay`} class="row-form" novalidate>
          <Field
            label="Replay since (UTC)"
            name="since"
            type="datetime-local"
            value={props.replay.values?.since}
            error={props.replay.errors?.since}
          />
          <button type="submit" class="secondary">
            Replay messages
          </button>
        </form>
      </section>
    </>
  );
}

/**
 * One message, for debugging a receiver: its event, status and times, its payload (pretty JSON,
 * escaped), each request with its answer, and the button that sends it again.
 */
/**
 * The headers each request of the message carries, as the latest one sent them: its id and
 * time, and a signature per signing secret (not kept: made from the secret at each request).
 */
function RequestHeaders(props: { messageId: string; latest: WebhookMessageAttemptView | undefined }) {
  const timestamp = props.latest ? String(Math.floor(Date.parse(props.latest.attempted_at) / 1000)) : null;
  const headers: [string, string][] = [
    ['content-type', 'application/json'],
    ['user-agent', 'Tidings'],
    ['webhook-id', props.messageId],
    ['webhook-timestamp', timestamp ?? '(the time of each request, in seconds)'],
    ['webhook-signature', 'v1,… (one per signing secret: HMAC-SHA256 of id.timestamp.body)'],
  ];
  return (
    <>
      <h3 id="headers-title">Request headers</h3>
      <p class="muted">
        {props.latest
          ? 'As the latest request sent them; every request of this message has the same id.'
          : 'What each request will carry.'}
      </p>
      <section class="payload" tabindex={0} aria-labelledby="headers-title">
        <pre>
          <code data-field="request-headers">{headers.map(([name, value]) => `${name}: ${value}`).join('\n')}</code>
        </pre>
      </section>
    </>
  );
}

export function MessagePage(props: {
  project: ProjectObject;
  endpoint: WebhookEndpointObject;
  message: Omit<WebhookMessageView, 'attempts'>;
  attempts: WebhookMessageAttemptView[];
  /** The older pending message of the same notification (or browser) this one waits for. */
  waitingBehind: string | null;
  state: FormState;
}) {
  const ctx = usePage();
  const { project, endpoint, message, state } = props;
  const path = endpointPath(ctx.base, endpoint);
  const root = `${ctx.base}/projects/${project.id}`;
  const subject = messageSubject(message.payload);
  const latest = props.attempts.at(-1);
  return (
    <ProjectFrame project={project} tab="webhooks" title="Webhook message">
      <p>
        <a href={`${path}#messages`}>← Endpoint</a>
      </p>
      {state.notice ? <Notice kind="success">{state.notice}</Notice> : null}
      <h2>
        <code>{message.event_type}</code>
      </h2>
      <dl class="facts">
        <dt>Message id</dt>
        <dd>
          <code>{message.id}</code>
        </dd>
        <dt>Endpoint</dt>
        <dd class="endpoint-url">
          <code>{endpoint.url}</code>
        </dd>
        <dt>Notification</dt>
        <dd data-field="notification">
          {subject.notificationId === null ? (
            <span class="muted">none</span>
          ) : (
            <a href={`${root}/notifications/${subject.notificationId}`}>
              <code>{subject.notificationId}</code>
            </a>
          )}
        </dd>
        <dt>Recipient</dt>
        <dd data-field="recipient">
          {subject.recipient === null ? (
            <span class="muted">none</span>
          ) : (
            <RecipientLink root={root} recipient={subject.recipient} />
          )}
        </dd>
        <dt>Status</dt>
        <dd data-field="status">
          <MessageStatus status={message.status} />
          {message.status === 'pending' && latest ? (
            <span class="muted"> retrying after {attemptOutcomeText(latest)}</span>
          ) : null}
        </dd>
        <dt>Attempts</dt>
        <dd>{props.attempts.length}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={message.created_at} />
        </dd>
        <dt>Next attempt</dt>
        <dd data-field="next-attempt">
          {props.waitingBehind !== null ? (
            <span data-waiting-behind={props.waitingBehind}>
              after{' '}
              <a href={`${path}/messages/${props.waitingBehind}`}>
                <code>{props.waitingBehind}</code>
              </a>
              , an older message of the same {subject.notificationId === null ? 'browser' : 'notification'} still
              pending: an endpoint gets them one at a time, in order
            </span>
          ) : message.next_attempt_at === null ? (
            <span class="muted">none</span>
          ) : (
            <Time at={message.next_attempt_at} />
          )}
        </dd>
        <dt>Delivered</dt>
        <dd>
          {message.delivered_at === null ? <span class="muted">not yet</span> : <Time at={message.delivered_at} />}
        </dd>
      </dl>
      <div class="actions endpoint-actions">
        <ButtonForm action={`${path}/messages/${message.id}/resend`} label="Resend" />
      </div>
      <h3 id="payload-title">Payload</h3>
      <section class="payload" tabindex={0} aria-labelledby="payload-title">
        <pre>
          <code>{JSON.stringify(message.payload, null, 2)}</code>
        </pre>
      </section>
      <RequestHeaders messageId={message.id} latest={props.attempts.at(-1)} />
      <h3>Requests</h3>
      {props.attempts.length === 0 ? (
        <p class="empty">Not sent yet.</p>
      ) : (
        <DataTable label="Requests" columns={['Time', 'Status code', 'Latency', 'Outcome', 'Response']}>
          {props.attempts.map((attempt) => (
            <tr data-outcome={attempt.outcome}>
              <td>
                <Time at={attempt.attempted_at} />
              </td>
              <td data-field="status-code">
                {attempt.status_code === null ? <span class="muted">none</span> : attempt.status_code}
              </td>
              <td class="num">{attempt.latency_ms} ms</td>
              <td>
                <span class={attempt.outcome === 'succeeded' ? 'badge status-delivered' : 'badge status-failed'}>
                  {attempt.outcome}
                </span>
                {attempt.error ? <span class="muted"> {attempt.error}</span> : null}
              </td>
              <td>
                {attempt.response_excerpt === null ? (
                  <span class="muted">none</span>
                ) : (
                  <Clip text={attempt.response_excerpt} code />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </ProjectFrame>
  );
}
