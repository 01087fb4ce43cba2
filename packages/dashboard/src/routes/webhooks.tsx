/** @jsxImportSource hono/jsx */
import { isId, MAX_WEBHOOK_ENDPOINTS_PER_PROJECT, TidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { audit, type DashboardContext, type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { auditEntryOf } from '../domain/audit-policy.js';
import { type EndpointHealth, endpointHealth, HEALTH_MESSAGES, HEALTH_WINDOW_MS } from '../domain/webhook-health.js';
import {
  type ParsedForm,
  parseForm,
  webhookEndpointBodySchema,
  webhookReplayBodySchema,
  webhookRollBodySchema,
} from '../forms.js';
import { pageOf } from '../paging.js';
import { CHECK_THE_FIELDS, refusalMessage } from '../refusals.js';
import { render, seeOther } from '../render.js';
import type { FormState } from '../views/auth-pages.js';
import {
  attemptOutcomeText,
  type MessageFilters,
  MessagePage,
  MessagesSection,
  WEBHOOK_MESSAGE_EVENT_TYPES,
  WEBHOOK_MESSAGE_STATUSES,
} from '../views/webhook-message-pages.js';
import {
  EndpointCreatedPage,
  EndpointDeletePage,
  EndpointEditPage,
  EndpointPage,
  endpointPath,
  RollSecretPage,
  SecretRolledPage,
  WebhooksPage,
} from '../views/webhook-pages.js';

const MESSAGES_PAGE_SIZE = 25;

const NOTICES: Record<string, string> = {
  updated: 'The endpoint is saved.',
  disabled: 'The endpoint is disabled: no event is sent to it until you enable it again.',
  enabled: 'The endpoint is enabled: it receives the events of changes made from now on.',
  deleted: 'The endpoint is deleted. No event is sent to it any more.',
  tested: 'A test event is on its way to this endpoint: it shows below as soon as it is sent.',
  resent: 'The message is sent again, with the same id, now: a message waiting for its next retry goes at once.',
};

function noticeOf(query: Record<string, string>): FormState {
  for (const [name, text] of Object.entries(NOTICES)) if (query[name] === '1') return { notice: text };
  const replayed = query.replayed ?? '';
  if (/^\d{1,7}$/.test(replayed)) {
    const count = Number(replayed);
    return {
      notice:
        count === 0
          ? 'No message of this endpoint since then: nothing to replay.'
          : `${count} ${count === 1 ? 'message is' : 'messages are'} sent again, in order.`,
    };
  }
  return {};
}

/**
 * A refusal of the admin API as the form shows it: what happened and what to do, each field's error
 * beside its field, and the HTTP status.
 */
function refusal(error: unknown, values: Record<string, string>): { state: FormState; status: ContentfulStatusCode } {
  if (!(error instanceof TidingsError)) throw error;
  const errors: Record<string, string> = {};
  for (const field of error.errors ?? []) errors[field.path] ??= field.message;
  return {
    state: { values, errors, message: refusalMessage(error) },
    status: error.status as ContentfulStatusCode,
  };
}

/** A form's own refusal, before the admin API is asked. */
function invalidForm(form: Extract<ParsedForm<unknown>, { ok: false }>): FormState {
  return { ...form, message: CHECK_THE_FIELDS };
}

/**
 * A project's webhook endpoints (docs/dashboard.md#webhooks): the list and creation (the secret
 * shown once), and per endpoint its page, edit, disable and enable, the secret's roll (the new
 * one shown once) and deletion. Each change goes through `tidings.admin` and is audited as the
 * signed-in account; only the project's owner reaches them, as its keys.
 */
export function registerWebhookRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options, tidings } = deps;
  const base = options.basePath;

  /** How the endpoint answered its newest messages of the last 24 hours. */
  async function healthOf(endpointId: string): Promise<EndpointHealth> {
    const since = options.clock.now() - HEALTH_WINDOW_MS;
    const health = endpointHealth(
      await tidings.admin.listWebhookMessages(endpointId, { since, limit: HEALTH_MESSAGES }),
    );
    // How the latest request ended, in its own words (`HTTP 500`), read from that one message.
    if (health.last !== null && health.last.status !== 'delivered') {
      const latest = await tidings.admin.getWebhookMessage(health.last.id).catch(() => null);
      const attempt = latest?.attempts.at(-1);
      if (attempt) health.lastOutcome = attemptOutcomeText(attempt);
    }
    return health;
  }

  async function listPage(c: DashboardContext, state: FormState, status: ContentfulStatusCode = 200) {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id') ?? '');
    const endpoints = await tidings.admin.listWebhookEndpoints(project.id);
    const health = new Map(
      await Promise.all(endpoints.map(async (endpoint) => [endpoint.id, await healthOf(endpoint.id)] as const)),
    );
    return render(
      c,
      <WebhooksPage
        project={project}
        endpoints={endpoints}
        health={health}
        limit={MAX_WEBHOOK_ENDPOINTS_PER_PROJECT}
        state={state}
      />,
      status,
    );
  }

  app.get('/projects/:id/webhooks', (c) => listPage(c, noticeOf(c.req.query())));
  app.post('/projects/:id/webhooks', async (c) => {
    const signedIn = signedInOf(c);
    const project = await ownedProject(deps, signedIn, c.req.param('id'));
    const form = parseForm(webhookEndpointBodySchema, await c.req.parseBody({ all: true }));
    if (!form.ok) return listPage(c, invalidForm(form), 400);
    if (project.suspended) {
      return listPage(
        c,
        {
          values: form.values,
          message: 'This project is suspended, so it takes no new webhook endpoints. Ask an operator to resume it.',
        },
        403,
      );
    }
    try {
      const created = await tidings.admin.createWebhookEndpoint({
        projectId: project.id,
        url: form.data.url,
        events: form.data.events,
        description: form.data.description ?? null,
      });
      // The secret goes to the page once, apart from the endpoint's record.
      const { secret, ...endpoint } = created;
      if (!secret) throw new Error('a created webhook endpoint came back without its secret');
      await audit(c, deps, signedIn, auditEntryOf('createWebhookEndpoint', endpoint));
      return render(c, <EndpointCreatedPage project={project} endpoint={endpoint} secret={secret} />);
    } catch (error) {
      const { state, status } = refusal(error, form.values);
      return listPage(c, state, status);
    }
  });

  /** The endpoint at `:endpointId` if it belongs to the owned project at `:id`; else NOT_FOUND. */
  async function ownedEndpoint(c: DashboardContext) {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id') ?? '');
    const endpoint = await tidings.admin.getWebhookEndpoint(c.req.param('endpointId') ?? '').catch((error: unknown) => {
      if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
      throw error;
    });
    if (!endpoint || endpoint.project_id !== project.id) {
      throw new TidingsError('NOT_FOUND', 'No such webhook endpoint in this project');
    }
    return { project, endpoint };
  }

  /** The endpoint's page with its messages, filtered and paged as the query says; `replay` is the replay form's state. */
  async function endpointPage(
    c: DashboardContext,
    state: FormState,
    status: ContentfulStatusCode = 200,
    replay: FormState = {},
  ) {
    const { project, endpoint } = await ownedEndpoint(c);
    const rawStatus = c.req.query('status') ?? '';
    const before = c.req.query('before') ?? '';
    const rawType = c.req.query('event_type') ?? '';
    const notification = (c.req.query('notification') ?? '').trim();
    const recipient = (c.req.query('recipient') ?? '').trim();
    const filters: MessageFilters = {
      status: (WEBHOOK_MESSAGE_STATUSES as readonly string[]).includes(rawStatus)
        ? (rawStatus as MessageFilters['status'])
        : '',
      eventType: (WEBHOOK_MESSAGE_EVENT_TYPES as readonly string[]).includes(rawType) ? rawType : '',
      notification,
      recipient,
    };
    // A notification id or recipient of the wrong shape finds nothing: said beside its field.
    const errors: MessageFilters['errors'] = {};
    if (notification !== '' && !isId('ntf', notification)) errors.notification = 'A notification id starts with ntf_.';
    if (recipient !== '' && !/^[A-Za-z0-9_\-.:@]{1,128}$/.test(recipient)) {
      errors.recipient = 'A recipient is 1 to 128 of letters, digits and _ - . : @ (no spaces).';
    }
    filters.errors = errors;
    const refused = Object.keys(errors).length > 0;
    const items = refused
      ? []
      : await tidings.admin.listWebhookMessages(endpoint.id, {
          ...(filters.status ? { status: filters.status } : {}),
          ...(filters.eventType ? { eventType: filters.eventType } : {}),
          ...(notification ? { notificationId: notification } : {}),
          ...(recipient ? { recipient } : {}),
          ...(isId('msg', before) ? { before } : {}),
          limit: MESSAGES_PAGE_SIZE + 1,
        });
    const { page: messages, nextCursor } = pageOf(items, MESSAGES_PAGE_SIZE);
    return render(
      c,
      <EndpointPage project={project} endpoint={endpoint} health={await healthOf(endpoint.id)} state={state}>
        <MessagesSection
          endpoint={endpoint}
          messages={messages}
          filters={filters}
          nextCursor={nextCursor}
          replay={replay}
          live={!isId('msg', before)}
        />
      </EndpointPage>,
      refused && status === 200 ? 400 : status,
    );
  }

  app.get('/projects/:id/webhooks/:endpointId', (c) => endpointPage(c, noticeOf(c.req.query())));

  app.get('/projects/:id/webhooks/:endpointId/edit', async (c) => {
    const { project, endpoint } = await ownedEndpoint(c);
    return render(c, <EndpointEditPage project={project} endpoint={endpoint} state={{}} />);
  });
  app.post('/projects/:id/webhooks/:endpointId/edit', async (c) => {
    const signedIn = signedInOf(c);
    const { project, endpoint } = await ownedEndpoint(c);
    const form = parseForm(webhookEndpointBodySchema, await c.req.parseBody({ all: true }));
    if (!form.ok) {
      return render(c, <EndpointEditPage project={project} endpoint={endpoint} state={invalidForm(form)} />, 400);
    }
    try {
      const updated = await tidings.admin.updateWebhookEndpoint(endpoint.id, {
        url: form.data.url,
        events: form.data.events,
        description: form.data.description ?? null,
      });
      await audit(c, deps, signedIn, auditEntryOf('updateWebhookEndpoint', updated));
      return seeOther(c, `${endpointPath(base, updated)}?updated=1`);
    } catch (error) {
      const { state, status } = refusal(error, form.values);
      return render(c, <EndpointEditPage project={project} endpoint={endpoint} state={state} />, status);
    }
  });

  app.post('/projects/:id/webhooks/:endpointId/disable', async (c) => {
    const signedIn = signedInOf(c);
    const { endpoint } = await ownedEndpoint(c);
    if (endpoint.status === 'enabled') {
      const disabled = await tidings.admin.disableWebhookEndpoint(endpoint.id);
      await audit(c, deps, signedIn, auditEntryOf('disableWebhookEndpoint', disabled));
    }
    return seeOther(c, `${endpointPath(base, endpoint)}?disabled=1`);
  });
  app.post('/projects/:id/webhooks/:endpointId/enable', async (c) => {
    const signedIn = signedInOf(c);
    const { endpoint } = await ownedEndpoint(c);
    if (endpoint.status === 'disabled') {
      const enabled = await tidings.admin.enableWebhookEndpoint(endpoint.id);
      await audit(c, deps, signedIn, auditEntryOf('enableWebhookEndpoint', enabled));
    }
    return seeOther(c, `${endpointPath(base, endpoint)}?enabled=1`);
  });

  app.get('/projects/:id/webhooks/:endpointId/roll', async (c) => {
    const { project, endpoint } = await ownedEndpoint(c);
    return render(c, <RollSecretPage project={project} endpoint={endpoint} state={{}} />);
  });
  app.post('/projects/:id/webhooks/:endpointId/roll', async (c) => {
    const signedIn = signedInOf(c);
    const { project, endpoint } = await ownedEndpoint(c);
    const form = parseForm(webhookRollBodySchema, await c.req.parseBody());
    if (!form.ok) {
      return render(c, <RollSecretPage project={project} endpoint={endpoint} state={invalidForm(form)} />, 400);
    }
    const rolled = await tidings.admin.rollWebhookSecret(endpoint.id, { graceSeconds: form.data.grace_hours * 3600 });
    const { secret, ...after } = rolled;
    if (!secret) throw new Error('a rolled webhook endpoint came back without its secret');
    await audit(c, deps, signedIn, auditEntryOf('rollWebhookSecret', after));
    return render(c, <SecretRolledPage project={project} endpoint={after} secret={secret} />);
  });

  app.get('/projects/:id/webhooks/:endpointId/delete', async (c) => {
    const { project, endpoint } = await ownedEndpoint(c);
    return render(c, <EndpointDeletePage project={project} endpoint={endpoint} />);
  });
  app.post('/projects/:id/webhooks/:endpointId/delete', async (c) => {
    const signedIn = signedInOf(c);
    const { project, endpoint } = await ownedEndpoint(c);
    await tidings.admin.deleteWebhookEndpoint(endpoint.id);
    await audit(c, deps, signedIn, auditEntryOf('deleteWebhookEndpoint', endpoint));
    return seeOther(c, `${base}/projects/${project.id}/webhooks?deleted=1`);
  });
  app.post('/projects/:id/webhooks/:endpointId/test', async (c) => {
    const { project, endpoint } = await ownedEndpoint(c);
    if (project.suspended) {
      return endpointPage(
        c,
        { message: 'This project is suspended, so it sends no webhooks. Ask an operator to resume it.' },
        403,
      );
    }
    const { type } = await c.req.parseBody();
    // The admin API refuses a type it does not know (400, beside the other refusals).
    await tidings.admin.sendTestWebhookEvent(endpoint.id, typeof type === 'string' && type ? { type } : {});
    return seeOther(c, `${endpointPath(base, endpoint)}?tested=1#messages`);
  });

  app.post('/projects/:id/webhooks/:endpointId/replay', async (c) => {
    const signedIn = signedInOf(c);
    const { project, endpoint } = await ownedEndpoint(c);
    const form = parseForm(webhookReplayBodySchema, await c.req.parseBody());
    if (!form.ok) return endpointPage(c, {}, 400, invalidForm(form));
    if (project.suspended) {
      return endpointPage(c, {}, 403, {
        values: form.values,
        message: 'This project is suspended, so it sends no webhooks. Ask an operator to resume it.',
      });
    }
    try {
      const { count } = await tidings.admin.replayWebhookMessages(endpoint.id, { since: form.data.since });
      await audit(
        c,
        deps,
        signedIn,
        auditEntryOf('replayWebhookMessages', { endpoint, count, since: form.data.since }),
      );
      return seeOther(c, `${endpointPath(base, endpoint)}?replayed=${count}#messages`);
    } catch (error) {
      const { state, status } = refusal(error, form.values);
      return endpointPage(c, {}, status, state);
    }
  });

  /** The message at `:messageId` if it was sent to the endpoint at `:endpointId`; else NOT_FOUND. */
  async function ownedMessage(c: DashboardContext) {
    const { project, endpoint } = await ownedEndpoint(c);
    const message = await tidings.admin.getWebhookMessage(c.req.param('messageId') ?? '').catch((error: unknown) => {
      if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
      throw error;
    });
    if (!message || message.endpoint_id !== endpoint.id) {
      throw new TidingsError('NOT_FOUND', 'No such message of this webhook endpoint');
    }
    return { project, endpoint, message };
  }

  app.get('/projects/:id/webhooks/:endpointId/messages/:messageId', async (c) => {
    const { project, endpoint, message } = await ownedMessage(c);
    const { attempts, waiting_behind, ...rest } = message;
    return render(
      c,
      <MessagePage
        project={project}
        endpoint={endpoint}
        message={rest}
        attempts={attempts}
        waitingBehind={waiting_behind}
        state={noticeOf(c.req.query())}
      />,
    );
  });
  app.post('/projects/:id/webhooks/:endpointId/messages/:messageId/resend', async (c) => {
    const signedIn = signedInOf(c);
    const { project, endpoint, message } = await ownedMessage(c);
    if (project.suspended) {
      throw new TidingsError('PROJECT_SUSPENDED', 'This project is suspended: it sends no webhooks');
    }
    const resent = await tidings.admin.resendWebhookMessage(message.id);
    await audit(c, deps, signedIn, auditEntryOf('resendWebhookMessage', resent));
    return seeOther(c, `${endpointPath(base, endpoint)}/messages/${message.id}?resent=1`);
  });
}
