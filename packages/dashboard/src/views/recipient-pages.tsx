/** @jsxImportSource hono/jsx */
import type {
  BrowserDetail,
  BrowserObject,
  NotificationObject,
  ProjectObject,
  RecipientDetail,
  RecipientSummaryObject,
} from '@tidings/core';
import { summariseUserAgent } from '../domain/sessions.js';
import { MAX_RECIPIENT_LENGTH } from '../limits.js';
import { Clip } from './clip.js';
import { DataTable } from './data-table.js';
import { Field, Notice, Time, usePage } from './layout.js';
import { notificationRow, recipientRequestsHref } from './log-pages.js';
import { ProjectFrame } from './project-frame.js';
import { BrowserLink, browserHref, RecipientLink, recipientHref } from './recipient-links.js';

/** The recipients the Recipients tab lists a page. */
export const RECIPIENTS_PER_PAGE = 25;

/** A browser's state: connected, or disconnected and why. */
function BrowserState(props: { browser: BrowserObject }) {
  const { browser } = props;
  if (browser.connected) return <span class="badge ok">connected</span>;
  const why = browser.disconnect_reason === 'browser_stale' ? 'stale: no stream or poll for too long' : 'by request';
  return (
    <>
      <span class="badge muted-badge">disconnected</span> <span class="muted">({why})</span>
    </>
  );
}

/** How a browser connects: its stream (open now or not) or its poll, as it registered. */
export function connectionText(browser: BrowserObject): string {
  if (browser.stream_open) return 'event stream, open now';
  if (browser.connected_by === 'stream') return browser.connected ? 'event stream, none open now' : 'event stream';
  if (browser.connected_by === 'poll') return 'poll';
  return 'not recorded';
}

/** Its push subscription's service, as an origin, or a dash. */
function PushService(props: { browser: BrowserObject }) {
  return props.browser.push_service ? <code>{props.browser.push_service}</code> : <span class="muted">none</span>;
}

/** Its user agent in short (`Firefox on Linux`), the whole string in the title and on the browser's page. */
function UserAgent(props: { browser: BrowserObject }) {
  const { user_agent: userAgent } = props.browser;
  return userAgent ? (
    <span title={userAgent}>{summariseUserAgent(userAgent)}</span>
  ) : (
    <span class="muted">not recorded</span>
  );
}

/** What the dashboard calls a browser of its own recipient: the tabs that sent a test. */
export function dashboardTabLabel(recipient: string, dashboardRecipient: string): string | null {
  return recipient === dashboardRecipient ? 'dashboard tab' : null;
}

/** A page of the project's recipients, as the Recipients tab lists them. */
export interface RecipientList {
  recipients: RecipientSummaryObject[];
  /** The `after` of the next page (the last id shown), or null on the last page. */
  nextCursor: string | null;
  /** This page starts after another (a link to the first page is shown). */
  later: boolean;
  /** Why the page asked for cannot be listed (a cut or altered link): the first page is shown. */
  error?: string;
}

/** The Recipients tab: find a recipient by its id, or pick it from every recipient of the project. */
export function RecipientsPage(props: {
  project: ProjectObject;
  value: string;
  /** The id's own mistake (400), shown beside the field. */
  error?: string;
  /** A well-formed id that names no recipient here (404), shown as a banner. */
  message?: string;
  dashboardRecipient: string;
  list: RecipientList;
}) {
  const ctx = usePage();
  const root = `${ctx.base}/projects/${props.project.id}`;
  const { list } = props;
  return (
    <ProjectFrame project={props.project} tab="recipients" title="Recipients">
      <h2>Recipients</h2>
      <p class="muted">
        A recipient is the id your server gave when it minted a connect token. Its page shows its browsers, how each
        connects, its inbox and the notifications sent to it.
      </p>
      {props.message ? <Notice kind="error">{props.message}</Notice> : null}
      <form method="get" action={`${root}/recipients`} class="row-form">
        <Field
          label="Recipient id"
          name="recipient"
          id="lookup-recipient"
          value={props.value}
          error={props.error}
          hint="Exactly as your server sends it: 1 to 128 of A-Z a-z 0-9 _ - . : @"
          limit={MAX_RECIPIENT_LENGTH}
        />
        <button type="submit">Open</button>
      </form>
      <p>
        Your own recipient in this project, the dashboard’s tabs that send a test notification:{' '}
        <a href={recipientHref(root, props.dashboardRecipient)}>
          <code>{props.dashboardRecipient}</code>
        </a>
        .
      </p>
      <h3>All recipients</h3>
      <p class="muted">
        In the order of their ids, character by character (digits before capitals, capitals before small letters),{' '}
        {RECIPIENTS_PER_PAGE} a page.
      </p>
      {list.error ? <Notice kind="error">{list.error}</Notice> : null}
      {list.recipients.length === 0 ? (
        <p class="empty">
          {list.later
            ? 'No recipients after this page.'
            : 'No recipients yet: a recipient exists once your server has minted a connect token for it.'}
        </p>
      ) : (
        <DataTable
          label="Recipients"
          columns={['Recipient', 'First connect token', { label: 'Connected browsers', num: true }]}
        >
          {list.recipients.map((recipient) => (
            <tr data-recipient={recipient.id}>
              <td>
                <RecipientLink root={root} recipient={recipient.id} />
                {recipient.id === props.dashboardRecipient ? (
                  <>
                    {' '}
                    <span class="badge tab">dashboard tabs</span>
                  </>
                ) : null}
              </td>
              <td>
                <Time at={recipient.created_at} />
              </td>
              <td class="num">{recipient.connected_browsers}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {list.nextCursor || list.later ? (
        <nav class="pager" aria-label="Recipients pages">
          {list.later ? <a href={`${root}/recipients`}>First page</a> : null}
          {list.nextCursor ? (
            <a href={`${root}/recipients?after=${encodeURIComponent(list.nextCursor)}`} rel="next">
              Next recipients
            </a>
          ) : null}
        </nav>
      ) : null}
    </ProjectFrame>
  );
}

/** A recipient's page: its browsers, its inbox, and the notifications sent to it. */
export function RecipientPage(props: {
  project: ProjectObject;
  detail: RecipientDetail;
  notifications: NotificationObject[];
  nextCursor: string | null;
  dashboardRecipient: string;
}) {
  const ctx = usePage();
  const { project, detail } = props;
  const root = `${ctx.base}/projects/${project.id}`;
  const here = recipientHref(root, detail.id);
  const tabLabel = dashboardTabLabel(detail.id, props.dashboardRecipient);
  return (
    <ProjectFrame project={project} tab="recipients" title="Recipient">
      <p>
        <a href={`${root}/recipients`}>← Recipients</a>
      </p>
      <h2>
        <code>{detail.id}</code>
      </h2>
      <dl class="facts">
        <dt>First connect token</dt>
        <dd>
          <Time at={detail.created_at} />
        </dd>
        <dt>Inbox</dt>
        <dd data-field="inbox">
          {detail.inbox.unread} unread, {detail.inbox.unseen} unseen of {detail.inbox.total}
        </dd>
        <dt>Connected browsers</dt>
        <dd data-field="connected">
          {detail.browsers.filter((browser) => browser.connected).length}
          {detail.has_more_browsers ? ' among the newest listed' : ''}
        </dd>
      </dl>
      <p>
        <a href={recipientRequestsHref(root, detail.id)} data-link="recipient-requests">
          Requests naming this recipient
        </a>{' '}
        <span class="muted">(sends, tokens, reads, refused ones included: a refused send makes no notification)</span>
      </p>
      <h3>Browsers</h3>
      {detail.browsers.length === 0 ? (
        <p class="empty">No browser has connected as this recipient yet.</p>
      ) : (
        <DataTable
          label="Browsers"
          columns={['Browser', 'State', 'Connects by', 'Web Push', 'Last seen', 'User agent']}
        >
          {detail.browsers.map((browser) => (
            <tr data-browser-id={browser.id}>
              <td>
                <BrowserLink root={root} browserId={browser.id} label={tabLabel} />
              </td>
              <td>
                <BrowserState browser={browser} />
              </td>
              <td>{connectionText(browser)}</td>
              <td>
                <PushService browser={browser} />
              </td>
              <td>
                <Time at={browser.last_seen_at} />
              </td>
              <td>
                <UserAgent browser={browser} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {detail.has_more_browsers ? <p class="muted">The newest {detail.browsers.length} browsers are listed.</p> : null}
      <h3>Notifications</h3>
      {props.notifications.length === 0 ? (
        <p class="empty">Nothing sent to this recipient{props.nextCursor === null ? '' : ' on this page'}.</p>
      ) : (
        <DataTable label="Notifications to this recipient" columns={['Sent', 'Title', 'Mode', 'Status', 'Attempts']}>
          {props.notifications.map((item) => notificationRow(item, root))}
        </DataTable>
      )}
      {props.nextCursor ? (
        <p>
          <a href={`${here}${here.includes('?') ? '&' : '?'}before=${props.nextCursor}`} rel="next">
            Older notifications
          </a>
        </p>
      ) : null}
    </ProjectFrame>
  );
}

/** A browser's page: what it is, how it connects, and its attempts. */
export function BrowserPage(props: { project: ProjectObject; detail: BrowserDetail; dashboardRecipient: string }) {
  const ctx = usePage();
  const { project } = props;
  const { browser, attempts } = props.detail;
  const root = `${ctx.base}/projects/${project.id}`;
  const tabLabel = dashboardTabLabel(browser.recipient, props.dashboardRecipient);
  return (
    <ProjectFrame project={project} tab="recipients" title="Browser">
      <p>
        <a href={recipientHref(root, browser.recipient)}>← Recipient</a>
      </p>
      <h2>
        <code>{browser.id}</code>
        {tabLabel ? <span class="badge">{tabLabel}</span> : null}
      </h2>
      <dl class="facts">
        <dt>Recipient</dt>
        <dd>
          <a href={recipientHref(root, browser.recipient)}>
            <code>{browser.recipient}</code>
          </a>
        </dd>
        <dt>State</dt>
        <dd data-field="state">
          <BrowserState browser={browser} />
        </dd>
        <dt>Connects by</dt>
        <dd data-field="connection">{connectionText(browser)}</dd>
        <dt>Web Push</dt>
        <dd data-field="push">
          <PushService browser={browser} />
        </dd>
        <dt>Created</dt>
        <dd>
          <Time at={browser.created_at} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time at={browser.last_seen_at} />
        </dd>
        {browser.disconnected_at ? (
          <>
            <dt>Disconnected</dt>
            <dd>
              <Time at={browser.disconnected_at} />
            </dd>
          </>
        ) : null}
        <dt>User agent</dt>
        <dd data-field="user-agent">
          {browser.user_agent ? (
            <>
              {summariseUserAgent(browser.user_agent)}: <code>{browser.user_agent}</code>
            </>
          ) : (
            <span class="muted">not recorded</span>
          )}
        </dd>
      </dl>
      <h3>Attempts</h3>
      <p class="muted">One per notification sent to its recipient while it was connected, newest first.</p>
      {attempts.length === 0 ? (
        <p class="empty">No attempt{props.detail.next_before ? ' among these sends' : ' yet'}.</p>
      ) : (
        <DataTable
          label="Attempts of this browser"
          columns={['Sent', 'Notification', 'Mode', 'Status', 'Delivered', 'Displayed', 'Clicked']}
        >
          {attempts.map(({ notification, attempt }) => (
            <tr data-attempt-id={attempt.id}>
              <td>
                <Time at={notification.created_at} />
              </td>
              <td>
                <Clip text={notification.title} href={`${root}/notifications/${notification.id}`} />
              </td>
              <td>
                <span class={`badge ${notification.mode}`}>{notification.mode}</span>
              </td>
              <td>
                <span class={`badge status-${attempt.status}`}>{attempt.status}</span>
                {attempt.reason ? <span class="muted"> ({attempt.reason})</span> : null}
              </td>
              <td>{attempt.delivered_at ? <Time at={attempt.delivered_at} /> : <span class="muted">—</span>}</td>
              <td>{attempt.displayed_at ? <Time at={attempt.displayed_at} /> : <span class="muted">—</span>}</td>
              <td>{attempt.clicked_at ? <Time at={attempt.clicked_at} /> : <span class="muted">—</span>}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {props.detail.next_before ? (
        <p>
          <a href={`${browserHref(root, browser.id)}?before=${props.detail.next_before}`} rel="next">
            Older attempts
          </a>
        </p>
      ) : null}
    </ProjectFrame>
  );
}
