/** @jsxImportSource hono/jsx */
import { isId, TidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import { type DashboardContext, type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { pageOf } from '../paging.js';
import { render, seeOther } from '../render.js';
import { recipientHref } from '../views/recipient-links.js';
import { BrowserPage, RecipientLookupPage, RecipientPage } from '../views/recipient-pages.js';
import { firstSendRecipient } from './first-send.js';

const PAGE_SIZE = 25;

/** NOT_FOUND of the admin API as null, anything else thrown on. */
function orNull<T>(promise: Promise<T>): Promise<T | null> {
  return promise.catch((error: unknown) => {
    if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
    throw error;
  });
}

/**
 * A project's recipients and browsers (docs/dashboard.md#recipients-and-browsers): the lookup of
 * the Recipients tab, a recipient's page and a browser's page, read through `tidings.admin`. A
 * recipient or browser of another project is NOT_FOUND, as an unknown one.
 */
export function registerRecipientRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { tidings } = deps;
  const base = deps.options.basePath;

  async function recipientPage(c: DashboardContext, recipient: string) {
    const signedIn = signedInOf(c);
    const project = await ownedProject(deps, signedIn, c.req.param('id') ?? '');
    const dashboardRecipient = firstSendRecipient(signedIn.account.account.id);
    // An id no recipient can have names no page, as an unknown one.
    const detail = await tidings.admin.getRecipient(project.id, recipient).catch((error: unknown) => {
      if (!(error instanceof TidingsError) || (error.code !== 'VALIDATION_FAILED' && error.code !== 'NOT_FOUND')) {
        throw error;
      }
      throw new TidingsError('NOT_FOUND', 'No recipient of this id in this project');
    });
    const before = c.req.query('before') ?? '';
    const items = await tidings.admin.listNotifications(project.id, {
      recipient: detail.id,
      limit: PAGE_SIZE + 1,
      ...(isId('ntf', before) ? { before } : {}),
    });
    const { page: notifications, nextCursor } = pageOf(items, PAGE_SIZE);
    return render(
      c,
      <RecipientPage
        project={project}
        detail={detail}
        notifications={notifications}
        nextCursor={nextCursor}
        dashboardRecipient={dashboardRecipient}
      />,
    );
  }

  app.get('/projects/:id/recipients', async (c) => {
    const signedIn = signedInOf(c);
    const project = await ownedProject(deps, signedIn, c.req.param('id'));
    const dashboardRecipient = firstSendRecipient(signedIn.account.account.id);
    const value = c.req.query('recipient');
    if (value === undefined) {
      return render(c, <RecipientLookupPage project={project} value="" dashboardRecipient={dashboardRecipient} />);
    }
    const recipient = value.trim();
    const refused = (text: string, status: 400 | 404) =>
      render(
        c,
        <RecipientLookupPage
          project={project}
          value={value}
          {...(status === 400 ? { error: text } : { message: text })}
          dashboardRecipient={dashboardRecipient}
        />,
        status,
      );
    const detail = await orNull(tidings.admin.getRecipient(project.id, recipient)).catch((error: unknown) => {
      if (error instanceof TidingsError && error.code === 'VALIDATION_FAILED') return 'invalid' as const;
      throw error;
    });
    if (detail === 'invalid') {
      return refused(
        recipient === ''
          ? 'Type a recipient id.'
          : 'No recipient can have this id: an id is 1 to 128 of A-Z a-z 0-9 _ - . : @. Check it and try again.',
        400,
      );
    }
    if (detail === null) {
      return refused(
        'No recipient of this id in this project: a recipient exists once your server has minted a connect token for it. Check the id (case matters) and try again.',
        404,
      );
    }
    // `.` and `..` cannot be a path segment: their page is this address.
    const href = recipientHref(`${base}/projects/${project.id}`, recipient);
    if (href.includes('?')) return recipientPage(c, recipient);
    return seeOther(c, href);
  });

  app.get('/projects/:id/recipients/:recipient', (c) => recipientPage(c, c.req.param('recipient')));

  app.get('/projects/:id/browsers/:browserId', async (c) => {
    const signedIn = signedInOf(c);
    const project = await ownedProject(deps, signedIn, c.req.param('id'));
    const before = c.req.query('before') ?? '';
    const detail = await orNull(
      tidings.admin.getBrowser(project.id, c.req.param('browserId'), isId('ntf', before) ? { before } : {}),
    );
    if (!detail) throw new TidingsError('NOT_FOUND', 'No browser of this id in this project');
    return render(
      c,
      <BrowserPage
        project={project}
        detail={detail}
        dashboardRecipient={firstSendRecipient(signedIn.account.account.id)}
      />,
    );
  });
}
