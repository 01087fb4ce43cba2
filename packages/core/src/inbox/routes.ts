import {
  browserInboxCountsBodySchema,
  browserInboxListBodySchema,
  browserInboxMarkBodySchema,
  inboxListQuerySchema,
  inboxMarkBodySchema,
  parseBody,
  recipientSchema,
} from '../delivery/request-schemas.js';
import { authenticate } from '../pipeline/authenticate.js';
import { checkBrowserSecret } from '../pipeline/browser-checks.js';
import type { RouteContext, Services } from '../pipeline/context.js';
import { TidingsError } from '../pipeline/errors.js';
import { readJsonBody } from '../pipeline/http/body.js';
import { jsonReply } from '../pipeline/http/responses.js';
import { declareRoute, type RouteDeclaration } from '../pipeline/route.js';
import type { BrowserRecord, KeyMode } from '../ports/records.js';
import type { BrowserStore, InboxStore, InboxTarget } from '../ports/store.js';
import { inboxCountsObject, inboxListObject, inboxUpdateObject } from './objects.js';
import * as operations from './openapi.js';
import { markAndTell } from './tell.js';

/** The roles of the store these routes use. */
type RouteServices = Services<BrowserStore & InboxStore>;

/** The page size when none is asked for. */
const DEFAULT_PAGE = 20;

const NO_COUNTS = { total: 0, unread: 0, unseen: 0, version: 0 };

/** A browser's request: its JSON (or text/plain JSON) body, and the browser its credentials name. */
async function browserRequest(
  ctx: RouteContext,
  services: RouteServices,
): Promise<{ raw: unknown; browser: BrowserRecord }> {
  const { options } = services;
  const raw = await readJsonBody(ctx.request, {
    maxBytes: options.maxBodyBytes,
    accepted: 'json-or-text',
    required: true,
  });
  const secret = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).browser_secret : undefined;
  const lookup = await checkBrowserSecret(
    {
      store: options.store,
      limiter: services.limiter,
      limits: options.limits,
      rateLimitHeaders: options.rateLimitHeaders,
    },
    { browserId: ctx.params.id, secret, clientIpKey: ctx.clientIpKey, now: ctx.now },
  );
  if (!lookup.browser.connected) {
    throw new TidingsError('BROWSER_DISCONNECTED', 'This browser is disconnected; connect again for a new one');
  }
  return { raw, browser: lookup.browser };
}

function targetOf(body: { ids?: string[] | undefined; all?: true | undefined }): InboxTarget {
  return body.all ? { all: true } : { ids: body.ids! };
}

/** POST /v1/browsers/{id}/inbox: a page of the inbox of the browser's recipient. */
export async function listBrowserInbox(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { raw, browser } = await browserRequest(ctx, services);
  const body = parseBody(browserInboxListBodySchema, raw);
  const page = await services.options.store.listInbox({
    projectId: browser.projectId,
    recipient: browser.recipient,
    unread: body.unread ?? false,
    archived: body.archived ?? false,
    limit: body.limit ?? DEFAULT_PAGE,
    startingAfter: body.starting_after ?? null,
  });
  return jsonReply(ctx, 200, JSON.stringify(inboxListObject(page)));
}

/** POST /v1/browsers/{id}/inbox/counts: the counts of the browser's recipient. */
export async function browserInboxCounts(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { raw, browser } = await browserRequest(ctx, services);
  parseBody(browserInboxCountsBodySchema, raw);
  const counts = await services.options.store.getInboxCounts({
    projectId: browser.projectId,
    recipient: browser.recipient,
  });
  return jsonReply(ctx, 200, JSON.stringify(inboxCountsObject(counts)));
}

/** POST /v1/browsers/{id}/inbox/mark: marks items of the browser's recipient; every browser of theirs is told. */
export async function markBrowserInbox(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { raw, browser } = await browserRequest(ctx, services);
  const body = parseBody(browserInboxMarkBodySchema, raw);
  const update = await markAndTell(
    services,
    {
      projectId: browser.projectId,
      recipient: browser.recipient,
      action: body.action,
      target: targetOf(body),
      now: ctx.now,
    },
    ctx.requestId,
  );
  return jsonReply(ctx, 200, JSON.stringify(update));
}

/** The recipient of the path, checked as a send checks it. */
function recipientOf(ctx: RouteContext): string {
  let recipient: string;
  try {
    recipient = decodeURIComponent(ctx.params.recipient ?? '');
  } catch {
    recipient = '';
  }
  if (!recipientSchema.safeParse(recipient).success) {
    throw new TidingsError('VALIDATION_FAILED', 'The recipient in the path is not valid', {
      errors: [{ path: 'recipient', message: 'must be 1 to 128 characters of A-Z a-z 0-9 _ - . : @' }],
    });
  }
  return recipient;
}

/** The query of a GET, as an object of its parameters (the last of a repeated one). */
function queryOf(ctx: RouteContext): Record<string, string> {
  return Object.fromEntries(ctx.url.searchParams);
}

/** Test mode sends nothing to anyone, so its inbox is empty. */
function isTest(mode: KeyMode): boolean {
  return mode === 'test';
}

/** GET /v1/recipients/{recipient}/inbox: a page of a recipient's inbox, for the back end. */
export async function listRecipientInbox(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { key, project } = await authenticate(ctx, services, 'inbox-reads');
  const recipient = recipientOf(ctx);
  const query = parseBody(inboxListQuerySchema, queryOf(ctx));
  const page = isTest(key.mode)
    ? { items: [], hasMore: false, counts: NO_COUNTS }
    : await services.options.store.listInbox({
        projectId: project.id,
        recipient,
        unread: query.unread === 'true',
        archived: query.archived === 'true',
        limit: query.limit ?? DEFAULT_PAGE,
        startingAfter: query.starting_after ?? null,
      });
  return jsonReply(ctx, 200, JSON.stringify(inboxListObject(page)));
}

/** GET /v1/recipients/{recipient}/inbox/counts. */
export async function recipientInboxCounts(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { key, project } = await authenticate(ctx, services, 'inbox-reads');
  const recipient = recipientOf(ctx);
  parseBody(inboxListQuerySchema.pick({}), queryOf(ctx));
  const counts = isTest(key.mode)
    ? NO_COUNTS
    : await services.options.store.getInboxCounts({ projectId: project.id, recipient });
  return jsonReply(ctx, 200, JSON.stringify(inboxCountsObject(counts)));
}

/** POST /v1/recipients/{recipient}/inbox/mark: the user acted elsewhere; their browsers are told. */
export async function markRecipientInbox(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { key, project } = await authenticate(ctx, services);
  const recipient = recipientOf(ctx);
  const raw = await readJsonBody(ctx.request, {
    maxBytes: services.options.maxBodyBytes,
    accepted: 'json',
    required: true,
  });
  const body = parseBody(inboxMarkBodySchema, raw);
  if (isTest(key.mode)) {
    const update = inboxUpdateObject({
      action: body.action,
      all: body.all === true,
      changed: [],
      notFound: body.ids ?? [],
      counts: NO_COUNTS,
      previousVersion: 0,
      now: ctx.now,
    });
    return jsonReply(ctx, 200, JSON.stringify(update));
  }
  const update = await markAndTell(
    services,
    { projectId: project.id, recipient, action: body.action, target: targetOf(body), now: ctx.now },
    ctx.requestId,
  );
  return jsonReply(ctx, 200, JSON.stringify(update));
}

/** The inbox's routes: a browser's, with its secret, and the back end's, with an API key. */
export const INBOX_ROUTES: readonly RouteDeclaration[] = [
  declareRoute({
    path: '/v1/browsers/{id}/inbox',
    cors: 'browser',
    methods: { POST: { handler: listBrowserInbox, operation: operations.listBrowserInbox } },
  }),
  declareRoute({
    path: '/v1/browsers/{id}/inbox/counts',
    cors: 'browser',
    methods: { POST: { handler: browserInboxCounts, operation: operations.browserInboxCounts } },
  }),
  declareRoute({
    path: '/v1/browsers/{id}/inbox/mark',
    cors: 'browser',
    methods: { POST: { handler: markBrowserInbox, operation: operations.markBrowserInbox } },
  }),
  declareRoute({
    path: '/v1/recipients/{recipient}/inbox',
    cors: 'api',
    methods: { GET: { handler: listRecipientInbox, operation: operations.listRecipientInbox } },
  }),
  declareRoute({
    path: '/v1/recipients/{recipient}/inbox/counts',
    cors: 'api',
    methods: { GET: { handler: recipientInboxCounts, operation: operations.recipientInboxCounts } },
  }),
  declareRoute({
    path: '/v1/recipients/{recipient}/inbox/mark',
    cors: 'api',
    methods: { POST: { handler: markRecipientInbox, operation: operations.markRecipientInbox } },
  }),
];
