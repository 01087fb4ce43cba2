/** @jsxImportSource hono/jsx */
import type { ProjectObject, WebhookEndpointObject } from '@tidings/core';
import type { Child } from 'hono/jsx';
import type { EndpointHealth } from '../domain/webhook-health.js';
import { WEBHOOK_FORM_EVENTS } from '../forms.js';
import { MAX_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH } from '../limits.js';
import type { FormState } from './auth-pages.js';
import { Clip } from './clip.js';
import { DataTable } from './data-table.js';
import { Field, Notice, Time, usePage } from './layout.js';
import { ProjectFrame } from './project-frame.js';

/** What each event an endpoint may ask for reads as on its form. */
export const WEBHOOK_EVENT_LABELS: Record<(typeof WEBHOOK_FORM_EVENTS)[number], string> = {
  'notification.attempt.updated':
    'An attempt’s status changed (delivered, displayed, clicked, dismissed, expired, failed)',
  'notification.completed': 'A notification is complete (every attempt final)',
  'browser.connected': 'A browser connected',
  'browser.disconnected': 'A browser disconnected',
  'notification.read': 'An inbox item was read (in any browser of the recipient, or by your back end)',
  'notification.unread': 'An inbox item is still unread after the send’s notify_unread_after',
  '*': 'Every event, including types added later',
};

/** The path of an endpoint's pages. */
export function endpointPath(base: string, endpoint: { project_id: string; id: string }): string {
  return `${base}/projects/${endpoint.project_id}/webhooks/${endpoint.id}`;
}

function EndpointStatus(props: { endpoint: WebhookEndpointObject; health?: EndpointHealth | undefined }) {
  const { endpoint, health } = props;
  if (endpoint.status === 'enabled') {
    return health?.failing ? (
      <span class="badge danger" title="Its latest request was not answered with 2xx">
        failing
      </span>
    ) : (
      <span class="badge ok">enabled</span>
    );
  }
  return (
    <>
      <span class="badge muted-badge">disabled</span>
      {endpoint.disabled_reason ? <span class="muted disabled-reason"> {endpoint.disabled_reason}</span> : null}
    </>
  );
}

function EventList(props: { events: string[] }) {
  return (
    <>
      {props.events.map((event, index) => (
        <>
          {index > 0 ? ', ' : null}
          <code>{event === '*' ? '* (every event)' : event}</code>
        </>
      ))}
    </>
  );
}

function EndpointTable(props: { endpoints: WebhookEndpointObject[]; health: ReadonlyMap<string, EndpointHealth> }) {
  const ctx = usePage();
  if (props.endpoints.length === 0) return <p class="empty">No webhook endpoints yet.</p>;
  return (
    <DataTable label="Webhook endpoints" columns={['URL', 'Description', 'Events', 'Status', 'Created']}>
      {props.endpoints.map((endpoint) => (
        <tr data-endpoint-id={endpoint.id}>
          <td>
            <Clip text={endpoint.url} href={endpointPath(ctx.base, endpoint)} code />
          </td>
          <td>{endpoint.description ? <Clip text={endpoint.description} /> : <span class="muted">none</span>}</td>
          <td>
            <EventList events={endpoint.events} />
          </td>
          <td>
            <EndpointStatus endpoint={endpoint} health={props.health.get(endpoint.id)} />
            <HealthLine health={props.health.get(endpoint.id)} compact />
          </td>
          <td>
            <Time at={endpoint.created_at} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** The fields of an endpoint's form: URL, description, and the events as checkboxes. */
function EndpointFields(props: { state: FormState; endpoint?: WebhookEndpointObject }) {
  const { state, endpoint } = props;
  const chosen = state.values
    ? (state.values.events ?? '').split(',').filter(Boolean)
    : (endpoint?.events ?? ['notification.attempt.updated', 'notification.completed']);
  const description = state.values ? state.values.description : (endpoint?.description ?? undefined);
  return (
    <>
      <Field
        label="Endpoint URL"
        name="url"
        type="url"
        limit={MAX_WEBHOOK_URL_LENGTH}
        value={state.values ? state.values.url : endpoint?.url}
        error={state.errors?.url}
        hint="Where Tidings sends each event by POST, e.g. https://example.com/webhooks/tidings."
      />
      <Field
        label="Description"
        name="description"
        required={false}
        limit={MAX_DESCRIPTION_LENGTH}
        value={description}
        error={state.errors?.description}
        hint="Optional: what receives it, e.g. “order service”."
      />
      <fieldset class="events" aria-describedby={state.errors?.events ? 'events-error' : undefined}>
        <legend>Events</legend>
        {WEBHOOK_FORM_EVENTS.map((event) => (
          <label>
            <input type="checkbox" name="events" value={event} checked={chosen.includes(event)} /> <code>{event}</code>{' '}
            <span class="muted">{WEBHOOK_EVENT_LABELS[event]}</span>
          </label>
        ))}
        {state.errors?.events ? (
          <p class="field-error" id="events-error">
            {state.errors.events}
          </p>
        ) : null}
      </fieldset>
    </>
  );
}

/** A notice of the page's state: the refusal, or what was just done. */
function StateNotices(props: { state: FormState }) {
  return (
    <>
      {props.state.message ? <Notice kind="error">{props.state.message}</Notice> : null}
      {props.state.notice ? <Notice kind="success">{props.state.notice}</Notice> : null}
    </>
  );
}

/**
 * A project's webhook endpoints: the list with n/limit, and the form to create one (or, at the
 * limit, why there is none).
 */
/** The last 24 hours of an endpoint: how many messages it took, and its latest request. */
function HealthLine(props: { health: EndpointHealth | undefined; compact?: boolean }) {
  const { health } = props;
  if (!health || health.tried === 0) {
    return <span class="muted health">{props.compact ? 'no requests' : 'no requests in 24 h'}</span>;
  }
  const percent = Math.floor((health.rate ?? 0) * 100);
  // In a table: the share alone, so that the column stays narrow; the endpoint's page has the rest.
  if (props.compact) {
    return (
      <span class="muted health" title={`${health.delivered} of ${health.tried} delivered in 24 h`}>
        {percent}% in 24 h
      </span>
    );
  }
  const last = health.last!;
  return (
    <span class="muted health">
      {health.delivered} of {health.tried} delivered ({percent}%); latest request <Time at={last.last_attempt_at!} />:{' '}
      {last.status === 'delivered'
        ? 'taken'
        : `${health.lastOutcome ?? 'not taken'}, ${last.status === 'failed' ? 'given up' : 'retrying'}`}
    </span>
  );
}

export function WebhooksPage(props: {
  project: ProjectObject;
  endpoints: WebhookEndpointObject[];
  health: ReadonlyMap<string, EndpointHealth>;
  limit: number;
  state: FormState;
}) {
  const ctx = usePage();
  const { project, endpoints, state } = props;
  return (
    <ProjectFrame project={project} tab="webhooks" title="Webhooks">
      <StateNotices state={state} />
      <h2>Webhooks</h2>
      <p class="muted">
        Tidings sends each endpoint the delivery events it asks for, signed with its secret (Standard Webhooks), in
        order, and retries for about a day when it does not answer 2xx.
      </p>
      <p class="count">
        {endpoints.length}/{props.limit} endpoints
      </p>
      <EndpointTable endpoints={endpoints} health={props.health} />
      <section class="card">
        <h2>New endpoint</h2>
        {endpoints.length >= props.limit ? (
          <Notice kind="info">
            This project has {endpoints.length} of its {props.limit} webhook endpoints. Delete one you no longer use to
            create another.
          </Notice>
        ) : (
          <>
            <p class="muted">
              The endpoint’s signing secret is shown once, right after you create it. It receives the events of changes
              made from then on.
            </p>
            <form method="post" action={`${ctx.base}/projects/${project.id}/webhooks`} novalidate>
              <EndpointFields state={state} />
              <button type="submit">Create endpoint</button>
            </form>
          </>
        )}
      </section>
    </ProjectFrame>
  );
}

/** A secret on the one page that shows it: the answer to the POST that made it. */
function SecretReveal(props: { endpoint: WebhookEndpointObject; secret: string; heading: string; children?: Child }) {
  const ctx = usePage();
  const url = endpointPath(ctx.base, props.endpoint);
  return (
    <section class="card reveal" data-replace-url={url} data-revealed="secret">
      <h2>{props.heading}</h2>
      <Notice kind="info">
        <strong>Copy it now: it will not be shown again.</strong> Your receiver checks each message’s{' '}
        <code>webhook-signature</code> with it. If you lose it, roll the secret to get a new one.
      </Notice>
      <div class="secret-row">
        <code id="new-secret" class="secret" data-secret tabindex={-1} autofocus>
          {props.secret}
        </code>
        <button type="button" class="copy" data-copy="new-secret" hidden>
          Copy
        </button>
      </div>
      <p class="hint" id="copy-status" role="status" aria-live="polite">
        Select the secret and copy it.
      </p>
      {props.children}
      <p>
        <a class="button" href={url}>
          I have copied it
        </a>
      </p>
    </section>
  );
}

/**
 * The answer to the POST that created an endpoint: the only response that ever carries its
 * secret. The script replaces this history entry with the endpoint's page and wipes the secret
 * when the page is left.
 */
export function EndpointCreatedPage(props: {
  project: ProjectObject;
  endpoint: WebhookEndpointObject;
  secret: string;
}) {
  const { project, endpoint } = props;
  return (
    <ProjectFrame project={project} tab="webhooks" title="New webhook endpoint">
      <SecretReveal endpoint={endpoint} secret={props.secret} heading="The endpoint’s signing secret">
        <p>
          Events for <code>{endpoint.url}</code> are signed with this secret.
        </p>
      </SecretReveal>
    </ProjectFrame>
  );
}

/** The answer to a roll: the new secret, once, and until when the previous one still signs. */
export function SecretRolledPage(props: { project: ProjectObject; endpoint: WebhookEndpointObject; secret: string }) {
  const { project, endpoint } = props;
  return (
    <ProjectFrame project={project} tab="webhooks" title="New webhook secret">
      <SecretReveal endpoint={endpoint} secret={props.secret} heading="The endpoint’s new signing secret">
        <p>
          {endpoint.previous_secret_expires_at === null ? (
            'The previous secret no longer signs.'
          ) : (
            <>
              Until <Time at={endpoint.previous_secret_expires_at} /> each message is signed with both secrets, so your
              receiver can switch to this one in the meantime.
            </>
          )}
        </p>
      </SecretReveal>
    </ProjectFrame>
  );
}

/** An endpoint's facts. */
function EndpointFacts(props: { endpoint: WebhookEndpointObject; health: EndpointHealth }) {
  const { endpoint, health } = props;
  return (
    <dl class="facts">
      <dt>Id</dt>
      <dd>
        <code>{endpoint.id}</code>
      </dd>
      <dt>URL</dt>
      <dd class="endpoint-url">
        <code>{endpoint.url}</code>
      </dd>
      <dt>Description</dt>
      <dd>{endpoint.description ?? <span class="muted">none</span>}</dd>
      <dt>Events</dt>
      <dd>
        <EventList events={endpoint.events} />
      </dd>
      <dt>Status</dt>
      <dd>
        <EndpointStatus endpoint={endpoint} health={health} />
      </dd>
      <dt>Last 24 h</dt>
      <dd>
        <HealthLine health={health} />
      </dd>
      {endpoint.previous_secret_expires_at ? (
        <>
          <dt>Previous secret</dt>
          <dd>
            signs too until <Time at={endpoint.previous_secret_expires_at} />
          </dd>
        </>
      ) : null}
      <dt>Created</dt>
      <dd>
        <Time at={endpoint.created_at} />
      </dd>
      <dt>Updated</dt>
      <dd>
        <Time at={endpoint.updated_at} />
      </dd>
    </dl>
  );
}

/** A form of one button that posts to `action`. */
/** Sends a test event: `webhook.test`, or a sample of a chosen type to try how a receiver handles it. */
function TestEventForm(props: { action: string }) {
  return (
    <form method="post" action={props.action} class="inline test-event">
      <label for="test-event-type" class="visually-hidden">
        Test event type
      </label>
      <select id="test-event-type" name="type">
        <option value="webhook.test" selected>
          webhook.test
        </option>
        {WEBHOOK_FORM_EVENTS.filter((type) => type !== '*').map((type) => (
          <option value={type}>{type} (a sample)</option>
        ))}
      </select>
      <button type="submit">Send a test event</button>
    </form>
  );
}

export function ButtonForm(props: { action: string; label: string; danger?: boolean; secondary?: boolean }) {
  return (
    <form method="post" action={props.action} class="inline">
      <button type="submit" class={props.danger ? 'danger' : props.secondary ? 'secondary' : undefined}>
        {props.label}
      </button>
    </form>
  );
}

/**
 * One endpoint: its facts, its actions (edit, test event, disable or enable, roll the secret,
 * delete), and what `children` adds below (its messages).
 */
export function EndpointPage(props: {
  project: ProjectObject;
  endpoint: WebhookEndpointObject;
  health: EndpointHealth;
  state: FormState;
  children?: Child;
}) {
  const ctx = usePage();
  const { project, endpoint, state } = props;
  const path = endpointPath(ctx.base, endpoint);
  return (
    <ProjectFrame project={project} tab="webhooks" title="Webhook endpoint">
      <p>
        <a href={`${ctx.base}/projects/${project.id}/webhooks`}>← Webhooks</a>
      </p>
      <StateNotices state={state} />
      <h2>{endpoint.description ?? 'Webhook endpoint'}</h2>
      <EndpointFacts endpoint={endpoint} health={props.health} />
      <div class="actions endpoint-actions">
        <TestEventForm action={`${path}/test`} />
        {endpoint.status === 'enabled' ? (
          <ButtonForm action={`${path}/disable`} label="Disable" secondary />
        ) : (
          <ButtonForm action={`${path}/enable`} label="Enable" secondary />
        )}
        <a href={`${path}/edit`}>Edit</a>
        <a href={`${path}/roll`}>Roll the secret</a>
        <a class="danger-link" href={`${path}/delete`}>
          Delete
        </a>
      </div>
      {props.children}
    </ProjectFrame>
  );
}

/** The form that changes an endpoint's URL, description and events. */
export function EndpointEditPage(props: { project: ProjectObject; endpoint: WebhookEndpointObject; state: FormState }) {
  const ctx = usePage();
  const { project, endpoint, state } = props;
  const path = endpointPath(ctx.base, endpoint);
  return (
    <ProjectFrame project={project} tab="webhooks" title="Edit webhook endpoint">
      <section class="card">
        <h2>Edit the endpoint</h2>
        <StateNotices state={state} />
        <form method="post" action={`${path}/edit`} novalidate>
          <EndpointFields state={state} endpoint={endpoint} />
          <div class="actions">
            <button type="submit">Save</button>
            <a href={path}>Cancel</a>
          </div>
        </form>
      </section>
    </ProjectFrame>
  );
}

/** The form that rolls the secret: how long the previous one still signs. */
export function RollSecretPage(props: { project: ProjectObject; endpoint: WebhookEndpointObject; state: FormState }) {
  const ctx = usePage();
  const { project, endpoint, state } = props;
  const path = endpointPath(ctx.base, endpoint);
  return (
    <ProjectFrame project={project} tab="webhooks" title="Roll webhook secret">
      <section class="card narrow">
        <h2>Roll the secret of this endpoint?</h2>
        <StateNotices state={state} />
        <p>
          <code>{endpoint.url}</code> gets a new signing secret, shown once on the next page. During the grace period
          each message is signed with both the new and the previous secret; after it, only with the new one.
        </p>
        <form method="post" action={`${path}/roll`} novalidate>
          <Field
            label="Grace period (hours)"
            name="grace_hours"
            inputmode="numeric"
            value={state.values?.grace_hours ?? '24'}
            error={state.errors?.grace_hours}
            hint="0 to 168 (7 days); 0 drops the previous secret at once."
          />
          <div class="actions">
            <button type="submit">Roll the secret</button>
            <a href={path}>Cancel</a>
          </div>
        </form>
      </section>
    </ProjectFrame>
  );
}

/** The confirmation before deleting an endpoint: at once, and for good. */
export function EndpointDeletePage(props: { project: ProjectObject; endpoint: WebhookEndpointObject }) {
  const ctx = usePage();
  const { project, endpoint } = props;
  const path = endpointPath(ctx.base, endpoint);
  return (
    <ProjectFrame project={project} tab="webhooks" title="Delete webhook endpoint">
      <section class="card narrow">
        <h2>Delete this endpoint?</h2>
        <p>
          <code>{endpoint.url}</code>
          {endpoint.description ? <> ({endpoint.description})</> : null}
        </p>
        <Notice kind="error">
          Deleting takes effect at once and cannot be undone: no event is sent to it any more, the messages waiting for
          it are dropped, and its log of messages goes with it.
        </Notice>
        <form method="post" action={`${path}/delete`} class="actions">
          <button type="submit" class="danger">
            Delete the endpoint
          </button>
          <a href={path}>Cancel</a>
        </form>
      </section>
    </ProjectFrame>
  );
}
