/** @jsxImportSource hono/jsx */
import type { AttemptObject, NotificationDetail, NotificationObject, ProjectObject } from '@tidings/core';
import type { TimelineEntry } from '../domain/timeline.js';
import { MAX_RECIPIENT_LENGTH } from '../limits.js';
import type { AuditEventRecord } from '../store.js';
import { Clip } from './clip.js';
import { DataTable } from './data-table.js';
import { Field, Time, usePage } from './layout.js';
import { ProjectFrame } from './project-frame.js';
import { BrowserLink, RecipientLink, recipientHref } from './recipient-links.js';

/** How an attempt went out, in the words of the notification page: by stream, poll or Web Push. */
export const PATH_LABELS = { stream: 'event stream', poll: 'poll', push: 'Web Push' } as const;

/** The attempts counted by status and path: `2 delivered via event stream, 1 delivered via Web Push`. */
export function attemptSummary(attempts: AttemptObject[]): string {
  const counts = new Map<string, number>();
  for (const attempt of attempts) {
    const label = `${attempt.status}${attempt.via ? ` via ${PATH_LABELS[attempt.via]}` : ''}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([label, n]) => `${n} ${label}`).join(', ') || 'no attempts';
}

/**
 * What became of a send, in words a person reads first: the API's `completed` means only that
 * every attempt is final, which a send whose only attempt failed is too. `kind` picks the badge.
 */
export function sendOutcome(notification: Pick<NotificationObject, 'mode' | 'status' | 'attempts'>): {
  label: string;
  kind: 'ok' | 'danger' | 'pending';
  detail: string;
} {
  const { attempts } = notification;
  if (notification.mode === 'test') {
    return { label: 'accepted (test mode)', kind: 'ok', detail: 'test mode sends nothing to a browser' };
  }
  if (notification.status === 'pending') {
    const final = attempts.filter((attempt) => attempt.final).length;
    return { label: 'pending', kind: 'pending', detail: `${final} of ${attempts.length} attempts final` };
  }
  const delivered = attempts.filter((attempt) => attempt.status === 'delivered').length;
  const others = attempts
    .filter((attempt) => attempt.status !== 'delivered')
    .map((attempt) => `${attempt.status}${attempt.reason ? ` (${attempt.reason})` : ''}`);
  const rest = [...new Set(others)].join(', ');
  if (delivered === attempts.length) return { label: 'delivered', kind: 'ok', detail: 'every attempt final' };
  if (delivered === 0) return { label: 'not delivered', kind: 'danger', detail: `every attempt final: ${rest}` };
  return {
    label: `delivered to ${delivered} of ${attempts.length}`,
    kind: 'ok',
    detail: `every attempt final; the others ${rest}`,
  };
}

/** A send's outcome as a badge, the API's status (`completed`, `pending`) beside it. */
export function SendOutcome(props: { notification: Pick<NotificationObject, 'mode' | 'status' | 'attempts'> }) {
  const outcome = sendOutcome(props.notification);
  const badge = outcome.kind === 'danger' ? 'badge danger' : outcome.kind === 'ok' ? 'badge ok' : 'badge';
  return (
    <>
      <span class={badge} data-outcome={outcome.label}>
        {outcome.label}
      </span>{' '}
      <span class="muted">
        ({props.notification.status}: {outcome.detail})
      </span>
    </>
  );
}

/** The filter of a log by mode: `mode` is `live`, `test`, or '' for both. */
export function ModeFilter(props: { mode: string }) {
  return (
    <div class="field">
      <label for="filter-mode">Mode</label>
      <select id="filter-mode" name="mode">
        <option value="" selected={props.mode === ''}>
          live and test
        </option>
        <option value="live" selected={props.mode === 'live'}>
          live
        </option>
        <option value="test" selected={props.mode === 'test'}>
          test
        </option>
      </select>
    </div>
  );
}

/**
 * A notification as a row of a table of sends: when, to whom (`withRecipient`), its title linking
 * to its page, mode, status, attempts. Called as a function, not as a component, so that the
 * table finds the row's cells and labels them.
 */
export function notificationRow(item: NotificationObject, root: string, withRecipient = false) {
  return (
    <tr data-notification-id={item.id}>
      <td>
        <Time at={item.created_at} />
      </td>
      {withRecipient ? (
        <td>
          <RecipientLink root={root} recipient={item.recipient} />
        </td>
      ) : null}
      <td>
        <Clip text={item.title} href={`${root}/notifications/${item.id}`} />
      </td>
      <td>
        <span class={`badge ${item.mode}`}>{item.mode}</span>
      </td>
      <td data-status={item.status}>
        <SendOutcome notification={item} />
      </td>
      <td>{attemptSummary(item.attempts)}</td>
    </tr>
  );
}

/** The filters of the log of sends, as the query carries them. */
export interface LogFilters {
  recipient: string;
  mode: '' | 'live' | 'test';
}

/** What the log of sends knows of the recipient it is filtered by. */
export interface RecipientFilterFacts {
  /** It has a page: a connect token was minted for it in this project. */
  known: boolean;
  /** Refused requests of the request log name it. */
  refused: boolean;
}

/** The requests of the request log that name a recipient, refused ones included. */
export function recipientRequestsHref(root: string, recipient: string): string {
  return `${root}/requests?${new URLSearchParams({ recipient })}`;
}

/** The project's notifications, newest first, filtered and paged by cursor. */
export function LogPage(props: {
  project: ProjectObject;
  items: NotificationObject[];
  filters: LogFilters;
  nextCursor: string | null;
  /** Said of the recipient filtered by, when there is one. */
  recipientFacts?: RecipientFilterFacts;
  /** Why the recipient typed is not one (too long, or a character a recipient cannot have): nothing is listed. */
  recipientError?: string;
}) {
  const ctx = usePage();
  const { project, filters } = props;
  const root = `${ctx.base}/projects/${project.id}`;
  const query = (cursor: string) => {
    const params = new URLSearchParams();
    if (filters.recipient) params.set('recipient', filters.recipient);
    if (filters.mode) params.set('mode', filters.mode);
    params.set('before', cursor);
    return `${root}/log?${params}`;
  };
  return (
    <ProjectFrame project={project} tab="log" title="Log of sends">
      <h2>Log of sends</h2>
      <p class="muted">
        Every notification of this project, newest first, with what happened at each browser. Open one to see its
        attempts.
      </p>
      <form method="get" action={`${root}/log`} class="row-form filters">
        <Field
          label="Recipient"
          name="recipient"
          id="filter-recipient"
          value={filters.recipient}
          required={false}
          limit={MAX_RECIPIENT_LENGTH}
          error={props.recipientError}
        />
        <ModeFilter mode={filters.mode} />
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {filters.recipient && props.recipientFacts ? (
        <RecipientFilterLinks root={root} recipient={filters.recipient} facts={props.recipientFacts} />
      ) : null}
      {props.items.length === 0 ? (
        <p class="empty">
          {filters.recipient ? (
            <>
              No notification was sent to <code>{filters.recipient}</code>
              {filters.mode ? ` in ${filters.mode} mode` : ''}.{' '}
              {props.recipientFacts?.refused ? (
                <>
                  A refused send makes no notification: the request log has{' '}
                  <a href={recipientRequestsHref(root, filters.recipient)} data-link="refused-requests">
                    refused requests for it
                  </a>
                  .
                </>
              ) : null}
            </>
          ) : (
            `No notifications${filters.mode ? ' match these filters' : ' yet'}.`
          )}
        </p>
      ) : (
        <DataTable label="Notifications" columns={['Sent', 'Recipient', 'Title', 'Mode', 'Status', 'Attempts']}>
          {props.items.map((item) => notificationRow(item, root, true))}
        </DataTable>
      )}
      {props.nextCursor ? (
        <p>
          <a href={query(props.nextCursor)} rel="next">
            Older notifications
          </a>
        </p>
      ) : null}
    </ProjectFrame>
  );
}

/**
 * Where to look next for a recipient: its page when it has one (else why it has none), and the
 * requests that name it, refused ones included.
 */
function RecipientFilterLinks(props: { root: string; recipient: string; facts: RecipientFilterFacts }) {
  const { root, recipient, facts } = props;
  return (
    <ul class="recipient-links" data-recipient-links>
      <li>
        {facts.known ? (
          <>
            <a href={recipientHref(root, recipient)}>
              The page of <code>{recipient}</code>
            </a>
            : its browsers, how each connects, and its inbox.
          </>
        ) : (
          <span data-recipient-unknown>
            <code>{recipient}</code> has no page: no connect token was ever minted for it in this project, so no browser
            of it can have connected.
          </span>
        )}
      </li>
      <li>
        <a href={recipientRequestsHref(root, recipient)} data-link="recipient-requests">
          Requests naming <code>{recipient}</code>
        </a>
        , refused ones included ({facts.refused ? 'some were refused' : 'none refused that the log still keeps'}).
      </li>
    </ul>
  );
}

/** A receipt's time, or a dash when it has not come (yet). */
function When(props: { at: string | null }) {
  return props.at === null ? <span class="muted">—</span> : <Time at={props.at} />;
}

const NOT_RECORDED = <span class="muted">not recorded (sent before this was kept)</span>;

/** An attempt's path: the stream or the poll it went out by, or why there is none to show. */
function attemptPath(mode: string, attempt: AttemptObject, path: 'stream' | 'poll' | 'push' | null | undefined) {
  if (mode === 'test') return 'none (test mode)';
  if (path) return PATH_LABELS[path];
  if (attempt.status === 'accepted' || attempt.sent_at === null) return <span class="muted">not sent yet</span>;
  return <span class="muted">not recorded</span>;
}

/** What the customer sent, as the API received it after defaults: title, body, url, icon, tag, data, ttl. */
function payloadOf(notification: NotificationObject) {
  const { title, body, url, icon, tag, data, ttl } = notification;
  return { title, body, url, icon, tag, data, ttl };
}

/**
 * One notification, for debugging a send: the request (payload, key, request id,
 * Idempotency-Key, mode, time) and each attempt with its path and receipts.
 */
export function NotificationPage(props: {
  project: ProjectObject;
  detail: NotificationDetail;
  /** Everything that happened to it, oldest first. */
  timeline: TimelineEntry[];
  /** Its webhook messages, per endpoint that has some. */
  webhookLinks: { url: string; href: string }[];
  /** The dashboard's own recipient for the signed-in account: its browsers are the dashboard's tabs. */
  dashboardRecipient: string;
  /** The browser of the tab that opened this page from its test panel, labelled "this tab". */
  thisTab: string | null;
}) {
  const ctx = usePage();
  const { project } = props;
  const { notification, request } = props.detail;
  const { attempts } = notification;
  const root = `${ctx.base}/projects/${project.id}`;
  const labelOf = (browserId: string) =>
    browserId === props.thisTab
      ? 'this tab'
      : notification.recipient === props.dashboardRecipient
        ? 'dashboard tab'
        : null;
  return (
    <ProjectFrame project={project} tab="log" title="Notification">
      <p>
        <a href={`${ctx.base}/projects/${project.id}/log`}>← Log of sends</a>
      </p>
      <h2>{notification.title}</h2>
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{notification.id}</code>
        </dd>
        <dt>Recipient</dt>
        <dd>
          <a href={recipientHref(root, notification.recipient)}>
            <code>{notification.recipient}</code>
          </a>
        </dd>
        <dt>Status</dt>
        <dd data-field="status">
          <SendOutcome notification={notification} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <Time at={notification.expires_at} />
        </dd>
      </dl>
      <Timeline entries={props.timeline} />
      {props.webhookLinks.length > 0 ? (
        <ul class="webhook-links">
          {props.webhookLinks.map((link) => (
            <li>
              <a href={link.href} data-link="webhook-messages">
                Webhook messages to <code>{link.url}</code>
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      <h3>Request</h3>
      <dl class="facts request">
        <dt>Mode</dt>
        <dd>
          <span class={`badge ${notification.mode}`}>{notification.mode}</span>
        </dd>
        <dt>Created</dt>
        <dd>
          <Time at={notification.created_at} />
        </dd>
        <dt>Key</dt>
        <dd data-field="key">
          {!request.recorded ? (
            NOT_RECORDED
          ) : request.key ? (
            <>
              <code>{request.key.prefix}…</code> {request.key.name ?? <span class="muted">(no name)</span>}
              {request.key.status === 'revoked' ? <span class="muted"> (revoked)</span> : null}
            </>
          ) : (
            <span class="muted">a key no longer known ({request.key_id})</span>
          )}
        </dd>
        <dt>Request id</dt>
        <dd data-field="request-id">{request.request_id ? <code>{request.request_id}</code> : NOT_RECORDED}</dd>
        <dt>Idempotency-Key</dt>
        <dd data-field="idempotency-key">
          {!request.recorded ? (
            NOT_RECORDED
          ) : request.idempotency_key !== null ? (
            <code>{request.idempotency_key}</code>
          ) : (
            <span class="muted">none</span>
          )}
        </dd>
      </dl>
      <p>
        <a href={`${ctx.base}/projects/${project.id}/requests?q=${notification.id}`} data-link="requests">
          Requests about this notification
        </a>{' '}
        <span class="muted">(its send, reads of it, inbox marks: those still in the request log)</span>
      </p>
      <h4 id="payload-title">Payload</h4>
      <section class="payload" tabindex={0} aria-labelledby="payload-title">
        <pre>
          <code>{JSON.stringify(payloadOf(notification), null, 2)}</code>
        </pre>
      </section>
      <InboxState detail={props.detail} />
      <h3>Attempts, one per connected browser</h3>
      <p class="muted">
        <strong>delivered</strong>: the browser confirmed it. <strong>sent</strong>: written to the browser’s open
        stream or answered to its poll, no receipt yet. <strong>accepted</strong>: waiting for the browser to connect.{' '}
        <strong>failed</strong>: the browser left before a receipt. <strong>expired</strong>: the ttl passed first.
        Every attempt goes to one browser, through its event stream or, where proxies break streams, its poll: the path
        column says which.
      </p>
      {attempts.length === 0 ? (
        <p class="empty">No attempts.</p>
      ) : (
        <DataTable
          label="Attempts"
          caption="Attempts and their receipts"
          columns={[
            'Browser',
            'Path',
            'Status',
            'Accepted',
            'Sent',
            'Delivered',
            'Displayed',
            'Clicked',
            'Dismissed',
            'Expired',
            'Failed',
          ]}
        >
          {attempts.map((attempt: AttemptObject) => (
            <tr data-attempt-id={attempt.id}>
              <td data-field="browser">
                <BrowserLink root={root} browserId={attempt.browser_id} label={labelOf(attempt.browser_id)} />
              </td>
              <td data-field="path">
                {attemptPath(notification.mode, attempt, props.detail.attempt_paths[attempt.id])}
              </td>
              <td>
                <span class={`badge status-${attempt.status}`}>{attempt.status}</span>
                {attempt.reason ? <span class="muted"> ({attempt.reason})</span> : null}
              </td>
              <td>
                <Time at={attempt.accepted_at} />
              </td>
              <td data-receipt="sent">
                <When at={attempt.sent_at} />
              </td>
              <td data-receipt="delivered">
                <When at={attempt.delivered_at} />
              </td>
              <td data-receipt="displayed">
                <When at={attempt.displayed_at} />
              </td>
              <td data-receipt="clicked">
                <When at={attempt.clicked_at} />
              </td>
              <td data-receipt="dismissed">
                <When at={attempt.dismissed_at} />
              </td>
              <td data-receipt="expired">
                <When at={attempt.expired_at} />
              </td>
              <td data-receipt="failed">
                <When at={attempt.failed_at} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </ProjectFrame>
  );
}

const CHANNEL_LABELS: Record<TimelineEntry['channel'], string> = {
  api: 'API',
  browser: 'browser',
  push: 'Web Push',
  webhook: 'webhook',
  inbox: 'inbox',
};

/** What happened to the notification, oldest first, each entry linked to its own page. */
function Timeline(props: { entries: TimelineEntry[] }) {
  return (
    <>
      <h3 id="timeline-title">Timeline</h3>
      <p class="muted">
        Everything that happened to this notification, oldest first: its request, each attempt at each browser, its
        receipts, Web Push, its webhook messages and each of their requests, its inbox item.
      </p>
      <ol class="timeline" aria-labelledby="timeline-title">
        {props.entries.map((entry) => (
          <li data-channel={entry.channel} data-tone={entry.tone}>
            <Time at={entry.at} precise /> <span class="badge">{CHANNEL_LABELS[entry.channel]}</span>{' '}
            <strong class={entry.tone === 'danger' ? 'timeline-what danger-text' : 'timeline-what'}>
              {entry.what}
            </strong>{' '}
            {entry.href ? <a href={entry.href}>{entry.detail}</a> : <span class="muted">{entry.detail}</span>}
          </li>
        ))}
      </ol>
    </>
  );
}

/** The notification as an item of its recipient's inbox, and the recipient's counts now. */
function InboxState(props: { detail: NotificationDetail }) {
  const { inbox } = props.detail;
  return (
    <>
      <h3>Inbox</h3>
      {inbox === null ? (
        <p class="muted">Test mode: no inbox item.</p>
      ) : (
        <dl class="facts inbox" data-field="inbox">
          <dt>Seen</dt>
          <dd data-inbox="seen">{inbox.item ? <When at={inbox.item.seen_at} /> : PAST_RETENTION}</dd>
          <dt>Read</dt>
          <dd data-inbox="read">{inbox.item ? <When at={inbox.item.read_at} /> : PAST_RETENTION}</dd>
          <dt>Archived</dt>
          <dd data-inbox="archived">{inbox.item ? <When at={inbox.item.archived_at} /> : PAST_RETENTION}</dd>
          <dt>Recipient’s inbox now</dt>
          <dd data-inbox="counts">
            {inbox.counts.unread} unread, {inbox.counts.unseen} unseen of {inbox.counts.total}{' '}
            <span class="muted">(items kept {inbox.retention_days} days)</span>
          </dd>
        </dl>
      )}
    </>
  );
}

const PAST_RETENTION = <span class="muted">past the inbox retention</span>;

const ACTIONS: Record<AuditEventRecord['action'], string> = {
  'project.created': 'Project created',
  'project.renamed': 'Project renamed',
  'project.inbox_retention_set': 'Inbox retention set',
  'project.suspended': 'Project suspended',
  'project.resumed': 'Project resumed',
  'project.deleted': 'Project deleted',
  'key.created': 'Key created',
  'key.revoked': 'Key revoked',
  'webhook.created': 'Webhook endpoint created',
  'webhook.updated': 'Webhook endpoint updated',
  'webhook.disabled': 'Webhook endpoint disabled',
  'webhook.enabled': 'Webhook endpoint enabled',
  'webhook.deleted': 'Webhook endpoint deleted',
  'webhook.secret_rolled': 'Webhook secret rolled',
  'webhook.message_resent': 'Webhook message resent',
  'webhook.messages_replayed': 'Webhook messages replayed',
  'account.created': 'Account created',
  'account.verified': 'Account verified',
  'account.operator_granted': 'Made an operator',
  'account.operator_revoked': 'No longer an operator',
  'account.sign_in_code_issued': 'Sign-in code issued',
  'invitation.sent': 'Invitation sent',
  'invitation.revoked': 'Invitation revoked',
  'vapid_key.rotated': 'Web Push keys rotated',
};

/** What an audit entry's action reads as. */
export function auditActionLabel(action: AuditEventRecord['action']): string {
  return ACTIONS[action];
}

/** The project's audit log: who did what, when, from where. */
export function AuditPage(props: { project: ProjectObject; events: AuditEventRecord[] }) {
  return (
    <ProjectFrame project={props.project} tab="audit" title="Audit log">
      <h2>Audit log</h2>
      <p class="muted">Changes to this project and its keys, newest first (the latest 200).</p>
      {props.events.length === 0 ? (
        <p class="empty">Nothing recorded yet.</p>
      ) : (
        <DataTable label="Audit log" columns={['When', 'What', 'Detail', 'By', 'From']}>
          {props.events.map((event) => (
            <tr data-action={event.action}>
              <td>
                <Time at={event.createdAt} />
              </td>
              <td>{ACTIONS[event.action]}</td>
              <td>
                <Clip text={event.reason ? `${event.detail} — reason: ${event.reason}` : event.detail} />
              </td>
              <td>
                <Clip
                  text={
                    event.source === 'cli' ? `${event.actorName ?? 'unknown'} (CLI)` : (event.actorEmail ?? 'unknown')
                  }
                />
              </td>
              <td>
                <code>{event.ip ?? '—'}</code>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </ProjectFrame>
  );
}
