/** @jsxImportSource hono/jsx */
import { isId, TidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import { type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { render } from '../render.js';
import { AuditPage, type LogFilters, LogPage, NotificationPage } from '../views/log-pages.js';
import { UsagePage } from '../views/usage-page.js';

const PAGE_SIZE = 25;
const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;
const RECIPIENT_PATTERN = /^[A-Za-z0-9_\-.:@]{1,128}$/;

/** A project's usage, its log of sends (and one notification), and its audit log. */
export function registerHistoryRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { options, tidings } = deps;

  app.get('/projects/:id/usage', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const usage = await tidings.admin.getUsage(project.id, { days: USAGE_DAYS });
    // Every day of the span, days without sends at 0, so the chart's bars line up with the dates.
    const byDate = new Map(usage.days.map((day) => [day.date, day]));
    const start = Date.parse(`${usage.from}T00:00:00Z`);
    const days = Array.from({ length: USAGE_DAYS }, (_, i) => {
      const date = new Date(start + i * DAY_MS).toISOString().slice(0, 10);
      return byDate.get(date) ?? { date, notifications: 0, attempts: 0 };
    });
    return render(c, <UsagePage project={project} usage={{ ...usage, days }} />);
  });

  app.get('/projects/:id/log', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const recipient = (c.req.query('recipient') ?? '').trim();
    const mode = c.req.query('mode') ?? '';
    const before = c.req.query('before') ?? '';
    const filters: LogFilters = {
      recipient: RECIPIENT_PATTERN.test(recipient) ? recipient : '',
      mode: mode === 'live' || mode === 'test' ? mode : '',
    };
    const items = await tidings.admin.listNotifications(project.id, {
      ...(isId('ntf', before) ? { before } : {}),
      limit: PAGE_SIZE + 1,
      ...(filters.recipient ? { recipient: filters.recipient } : {}),
      ...(filters.mode ? { mode: filters.mode } : {}),
    });
    const page = items.slice(0, PAGE_SIZE);
    const nextCursor = items.length > PAGE_SIZE ? (page[page.length - 1]?.id ?? null) : null;
    return render(c, <LogPage project={project} items={page} filters={filters} nextCursor={nextCursor} />);
  });

  app.get('/projects/:id/notifications/:notificationId', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const id = c.req.param('notificationId');
    const item = await tidings.admin.getNotification(project.id, id).catch((error: unknown) => {
      if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
      throw error;
    });
    if (!item) throw new TidingsError('NOT_FOUND', 'No such notification in this project');
    return render(c, <NotificationPage project={project} item={item} />);
  });

  app.get('/projects/:id/audit', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    const events = await options.store.listAuditEvents({ projectId: project.id, limit: 200 });
    return render(c, <AuditPage project={project} events={events} />);
  });
}
