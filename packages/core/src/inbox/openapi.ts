import { apiKey, jsonOrText, noAuth, schemaRef } from '../shared/openapi/refs.js';
import { commonHeaders, jsonResponse, problemResponses } from '../shared/openapi/responses.js';
import type { OpenApiOperation, OpenApiParameter } from '../shared/openapi/types.js';

const browserId: OpenApiParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The browser id (`brw_…`).',
  schema: { type: 'string' },
};

const recipient: OpenApiParameter = {
  name: 'recipient',
  in: 'path',
  required: true,
  description: 'Your own id of the recipient (percent-encoded where needed).',
  schema: { type: 'string' },
};

function query(name: string, description: string, schema: Record<string, unknown>): OpenApiParameter {
  return { name, in: 'query', required: false, description, schema };
}

const BROWSER_PROBLEMS = [
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'PROJECT_SUSPENDED',
  'BROWSER_DISCONNECTED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
] as const;

const KEY_PROBLEMS = [
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'PROJECT_SUSPENDED',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
] as const;

function browserOperation(
  operationId: string,
  summary: string,
  description: string,
  body: string,
  answer: { description: string; schema: string },
): OpenApiOperation {
  return {
    operationId,
    summary,
    description,
    tags: ['Inbox'],
    security: noAuth,
    parameters: [browserId],
    requestBody: { required: true, content: jsonOrText(body) },
    responses: {
      '200': jsonResponse(answer.description, answer.schema, commonHeaders(false)),
      ...problemResponses([...BROWSER_PROBLEMS], false),
    },
  };
}

export const listBrowserInbox = browserOperation(
  'listBrowserInbox',
  'List the inbox of a browser’s recipient',
  'A page of the recipient’s inbox, newest first, with the counts. The browser’s own credentials: a browser ' +
    'only ever sees the inbox of its recipient.',
  'BrowserInboxList',
  { description: 'A page of the inbox.', schema: 'InboxList' },
);

export const browserInboxCounts = browserOperation(
  'getBrowserInboxCounts',
  'Read the inbox counts of a browser’s recipient',
  'The counts of the items that are not archived: one row read, whatever the size of the inbox.',
  'BrowserInboxCounts',
  { description: 'The counts.', schema: 'InboxCounts' },
);

export const markBrowserInbox = browserOperation(
  'markBrowserInbox',
  'Mark items of a browser’s recipient',
  'One action on some items or on all of them. Every connected browser of the recipient gets the update as an ' +
    '`inbox` event of its stream.',
  'BrowserInboxMark',
  { description: 'What the mark changed.', schema: 'InboxUpdate' },
);

export const listRecipientInbox: OpenApiOperation = {
  operationId: 'listRecipientInbox',
  summary: 'List a recipient’s inbox',
  description: 'A page of the recipient’s inbox, newest first, with the counts. A test key sees an empty inbox.',
  tags: ['Inbox'],
  security: apiKey,
  parameters: [
    recipient,
    query('unread', 'Only the unread items.', { type: 'string', enum: ['true', 'false'] }),
    query('archived', 'The archived items only (`true`), or the others (the default).', {
      type: 'string',
      enum: ['true', 'false'],
    }),
    query('limit', 'Items per page, 1–100; default 20.', { type: 'integer', minimum: 1, maximum: 100 }),
    query('starting_after', 'The last id of the previous page.', { type: 'string' }),
  ],
  responses: {
    '200': jsonResponse('A page of the inbox.', 'InboxList', commonHeaders(true)),
    ...problemResponses([...KEY_PROBLEMS], true),
  },
};

export const recipientInboxCounts: OpenApiOperation = {
  operationId: 'getRecipientInboxCounts',
  summary: 'Read a recipient’s inbox counts',
  description: 'The counts of the items that are not archived. A test key sees zeros.',
  tags: ['Inbox'],
  security: apiKey,
  parameters: [recipient],
  responses: {
    '200': jsonResponse('The counts.', 'InboxCounts', commonHeaders(true)),
    ...problemResponses([...KEY_PROBLEMS], true),
  },
};

export const markRecipientInbox: OpenApiOperation = {
  operationId: 'markRecipientInbox',
  summary: 'Mark items of a recipient’s inbox',
  description:
    'The user acted elsewhere (read the email, say). Every connected browser of the recipient gets the update as ' +
    'an `inbox` event of its stream; an item that becomes read sends `notification.read`. A test key changes nothing.',
  tags: ['Inbox'],
  security: apiKey,
  parameters: [recipient],
  requestBody: { required: true, content: { 'application/json': { schema: schemaRef('InboxMark') } } },
  responses: {
    '200': jsonResponse('What the mark changed.', 'InboxUpdate', commonHeaders(true)),
    ...problemResponses([...KEY_PROBLEMS, 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'], true),
  },
};

/** The inbox's paths (docs/inbox.md). */
