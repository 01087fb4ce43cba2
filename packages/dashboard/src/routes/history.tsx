/** @jsxImportSource hono/jsx */
import { isId, TidingsError } from '@tidings/core';
import { utcDay } from '@tidings/core/store';
import type { Hono } from 'hono';
import { type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { lastMonthsRange, usageByMonth } from '../domain/monthly-usage.js';
import { notificationTimeline, type TimelineWebhookMessage } from '../domain/timeline.js';
import { MAX_RECIPIENT_LENGTH, tooLongMessage } from '../limits.js';
import { pageOf } from '../paging.js';
import { render } from '../render.js';
import {
  AuditPage,
  type LogFilters,
  LogPage,
  NotificationPage,
  PATH_LABELS,
  type RecipientFilterFacts,
} from '../views/log-pages.js';
import { MonthlyUsagePage, UsagePage, type UsageRangeState } from '../views/usage-page.js';
import { firstSendRecipient } from './first-send.js';

const PAGE_SIZE = 25;
/** Requests about a notification its timeline reads at most (the newest). */
const TIMELINE_REQUESTS = 100;
/** Messages per webhook endpoint its timeline reads at most (the newest). */
const TIMELINE_MESSAGES = 50;
const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const RANGE_LABELS = { from: 'From', to: 'To' } as const;

/** A `YYYY-MM-DD` day moved by `days` (the input is a well-formed day). */
function shiftDay(day: string, days: number): string {
  const at = Date.parse(`${day}T00:00:00Z`) + days * DAY_MS;
  return Number.isNaN(at) ? day : utcDay(at);
}
const RECIPIENT_PATTERN = /^[A-Za-z0-9_\-.:@]{1,128}$/;

/** A project's usage, its log of sends (and one notification), and its audit log. */
export function registerHistoryRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options, tidings } = deps;

  app.get('/projects/:id/usage', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const today = utcDay(tidings.admin.settings.clock.now());
    if (c.req.query('view') === 'month') {
      const breakdown = await tidings.admin.getUsageBreakdown(project.id, lastMonthsRange(today));
      const limit = await options.monthlyNotificationLimit(project);
      if (limit !== null && !(Number.isInteger(limit) && limit >= 0)) {
        throw new TypeError('monthlyNotificationLimit must answer a whole number of notifications, or null');
      }
      const usage = { months: usageByMonth(breakdown.days), limit };
      return render(c, <MonthlyUsagePage project={project} usage={usage} />);
    }
    // A plain GET form: the last 30 UTC days unless the query names others.
    const rawFrom = (c.req.query('from') ?? '').trim();
    const rawTo = (c.req.query('to') ?? '').trim();
    const to = rawTo || today;
    const from =
      rawFrom || (DAY_PATTERN.test(to) ? shiftDay(to, -(USAGE_DAYS - 1)) : shiftDay(today, -(USAGE_DAYS - 1)));
    const range: UsageRangeState = { from, to };
    try {
      const usage = await tidings.admin.getUsageBreakdown(project.id, { from, to });
      return render(c, <UsagePage project={project} range={range} usage={usage} />);
    } catch (error) {
      if (!(error instanceof TidingsError) || error.code !== 'VALIDATION_FAILED') throw error;
      const errors: NonNullable<UsageRangeState['errors']> = {};
      for (const field of error.errors ?? []) {
        if (field.path === 'from' || field.path === 'to')
          errors[field.path] = `${RANGE_LABELS[field.path]} ${field.message}`;
      }
      const message = `${Object.values(errors).join('; ') || error.message}. Choose other dates, then show the usage again.`;
      return render(c, <UsagePage project={project} range={{ ...range, errors, message }} usage={null} />, 400);
    }
  });

  app.get('/projects/:id/log', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const recipient = (c.req.query('recipient') ?? '').trim();
    const mode = c.req.query('mode') ?? '';
    const before = c.req.query('before') ?? '';
    const filters: LogFilters = { recipient, mode: mode === 'live' || mode === 'test' ? mode : '' };
    if (recipient !== '' && !RECIPIENT_PATTERN.test(recipient)) {
      // The filter's own mistake: said beside the field, the text kept, nothing listed.
      const recipientError =
        recipient.length > MAX_RECIPIENT_LENGTH
          ? tooLongMessage(recipient.length, MAX_RECIPIENT_LENGTH)
          : 'A recipient has only letters, digits and _ - . : @ (no spaces).';
      return render(
        c,
        <LogPage project={project} items={[]} filters={filters} nextCursor={null} recipientError={recipientError} />,
        400,
      );
    }
    const items = await tidings.admin.listNotifications(project.id, {
      ...(isId('ntf', before) ? { before } : {}),
      limit: PAGE_SIZE + 1,
      ...(filters.recipient ? { recipient: filters.recipient } : {}),
      ...(filters.mode ? { mode: filters.mode } : {}),
    });
    const { page, nextCursor } = pageOf(items, PAGE_SIZE);
    // A recipient filtered by: whether it has a page (a connect token was minted for it), and
    // whether refused requests name it (a refused send makes no notification, only a request).
    let about: RecipientFilterFacts | undefined;
    if (filters.recipient) {
      const known = await tidings.admin.getRecipient(project.id, filters.recipient).then(
        () => true,
        (error: unknown) => {
          if (error instanceof TidingsError && error.code === 'NOT_FOUND') return false;
          throw error;
        },
      );
      const refused = tidings.admin.settings.requestLog.enabled
        ? (await tidings.admin.listRequests(project.id, { recipient: filters.recipient, status: '4xx', limit: 1 }))
            .requests.length > 0
        : false;
      about = { known, refused };
    }
    return render(
      c,
      <LogPage project={project} items={page} filters={filters} nextCursor={nextCursor} recipientFacts={about} />,
    );
  });

  app.get('/projects/:id/notifications/:notificationId', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const id = c.req.param('notificationId');
    const detail = await tidings.admin.getNotificationDetail(project.id, id).catch((error: unknown) => {
      if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
      throw error;
    });
    if (!detail) throw new TidingsError('NOT_FOUND', 'No such notification in this project');
    // The test panel links here with its tab's browser, which the attempts then call "this tab".
    const tab = c.req.query('tab') ?? '';
    const root = `${options.basePath}/projects/${project.id}`;
    // Its timeline: what the request log keeps of it, and its webhook messages with their requests.
    const requests = tidings.admin.settings.requestLog.enabled
      ? (await tidings.admin.listRequests(project.id, { search: id, limit: TIMELINE_REQUESTS })).requests
      : [];
    const webhookMessages: TimelineWebhookMessage[] = [];
    const endpoints = await tidings.admin.listWebhookEndpoints(project.id);
    for (const endpoint of endpoints) {
      const messages = await tidings.admin.listWebhookMessages(endpoint.id, {
        notificationId: id,
        limit: TIMELINE_MESSAGES,
      });
      for (const listed of messages) {
        const { attempts, waiting_behind: _waiting, ...message } = await tidings.admin.getWebhookMessage(listed.id);
        webhookMessages.push({
          message,
          attempts,
          endpointUrl: endpoint.url,
          href: `${root}/webhooks/${endpoint.id}/messages/${listed.id}`,
        });
      }
    }
    const timeline = notificationTimeline({
      detail,
      requests,
      webhookMessages,
      root,
      pathLabel: (attempt) => {
        const path = detail.attempt_paths[attempt.id];
        return path ? PATH_LABELS[path] : null;
      },
    });
    const messageLinks = endpoints
      .filter((endpoint) => webhookMessages.some((item) => item.href.includes(`/webhooks/${endpoint.id}/`)))
      .map((endpoint) => ({
        url: endpoint.url,
        href: `${root}/webhooks/${endpoint.id}?${new URLSearchParams({ notification: id })}#messages`,
      }));
    return render(
      c,
      <NotificationPage
        project={project}
        detail={detail}
        timeline={timeline}
        webhookLinks={messageLinks}
        dashboardRecipient={firstSendRecipient(signedInOf(c).account.account.id)}
        thisTab={isId('brw', tab) ? tab : null}
      />,
    );
  });

  app.get('/projects/:id/audit', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const events = await options.store.listAuditEvents({ projectId: project.id, limit: 200 });
    return render(c, <AuditPage project={project} events={events} />);
  });
}
