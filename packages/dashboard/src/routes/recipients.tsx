/** @jsxImportSource hono/jsx */
import { isId, TidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import { type DashboardContext, type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { MAX_RECIPIENT_LENGTH, tooLongMessage } from '../limits.js';
import { pageOf } from '../paging.js';
import { render, seeOther } from '../render.js';
import { recipientHref } from '../views/recipient-links.js';
import {
  BrowserPage,
  RECIPIENTS_PER_PAGE,
  type RecipientList,
  RecipientPage,
  RecipientsPage,
} from '../views/recipient-pages.js';
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
 * A project's recipients and browsers (docs/dashboard.md#recipients-and-browsers): the Recipients
 * tab (every recipient, paged by cursor, and the lookup of one by its id), a recipient's page and
 * a browser's page, read through `tidings.admin`. A recipient or browser of another project is
 * NOT_FOUND, as an unknown one.
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

  /**
   * The page of the project's recipients after `after` (the first without it). A cursor no
   * recipient can have comes from a cut or altered link: the first page, saying so.
   */
  async function recipientList(projectId: string, after: string | undefined): Promise<RecipientList> {
    const read = (cursor: string | undefined) =>
      tidings.admin.listRecipients(projectId, {
        limit: RECIPIENTS_PER_PAGE + 1,
        ...(cursor === undefined ? {} : { after: cursor }),
      });
    const found = await read(after).catch((error: unknown) => {
      if (error instanceof TidingsError && error.code === 'VALIDATION_FAILED') return null;
      throw error;
    });
    if (found === null) {
      const { page, nextCursor } = pageOf(await read(undefined), RECIPIENTS_PER_PAGE);
      return {
        recipients: page,
        nextCursor,
        later: false,
        error:
          'The link to that page of recipients is broken (it starts after an id no recipient can have), so the first page is shown.',
      };
    }
    const { page, nextCursor } = pageOf(found, RECIPIENTS_PER_PAGE);
    return { recipients: page, nextCursor, later: after !== undefined };
  }

  app.get('/projects/:id/recipients', async (c) => {
    const signedIn = signedInOf(c);
    const project = await ownedProject(deps, signedIn, c.req.param('id'));
    const dashboardRecipient = firstSendRecipient(signedIn.account.account.id);
    const value = c.req.query('recipient');
    if (value === undefined) {
      const list = await recipientList(project.id, c.req.query('after'));
      return render(
        c,
        <RecipientsPage project={project} value="" dashboardRecipient={dashboardRecipient} list={list} />,
        list.error ? 400 : 200,
      );
    }
    const recipient = value.trim();
    const refused = async (text: string, status: 400 | 404) =>
      render(
        c,
        <RecipientsPage
          project={project}
          value={value}
          {...(status === 400 ? { error: text } : { message: text })}
          dashboardRecipient={dashboardRecipient}
          list={await recipientList(project.id, undefined)}
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
          : recipient.length > MAX_RECIPIENT_LENGTH
            ? tooLongMessage(recipient.length, MAX_RECIPIENT_LENGTH)
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
