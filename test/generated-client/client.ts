import createClient from 'openapi-fetch';
// Generated from docs/openapi.json by openapi-typescript when the test runs (not committed).
import type { paths } from './schema.js';

/** What the run of every operation saw, for the test to check. */
export interface OperationResults {
  createNotification: { status: number; id?: string; attempts?: number };
  createNotificationProblem: { status: number; code?: string; errors?: number };
  getNotification: { status: number; status_?: string };
  getNotificationMissing: { status: number; code?: string };
  createConnectToken: { status: number; token?: string };
  openStream: { status: number; contentType: string | null };
  connectBrowser: { status: number; browserId?: string };
  connectBrowserPoll: { status: number; pending?: number };
  postEvents: { status: number; accepted?: number };
  putPushSubscription: { status: number; code?: string };
  deletePushSubscription: { status: number };
  disconnectBrowser: { status: number };
  getOpenApiDocument: { status: number; openapi?: string };
  listBrowserInbox: { status: number; items?: number; unread?: number };
  getBrowserInboxCounts: { status: number; unread?: number };
  markBrowserInbox: { status: number; changed?: number; unread?: number };
  listRecipientInbox: { status: number; items?: number; unread?: number };
  getRecipientInboxCounts: { status: number; unread?: number };
  markRecipientInbox: { status: number; changed?: number; unread?: number };
}

/**
 * Calls every operation of the document with a client generated from it, as a user of
 * openapi-typescript and openapi-fetch would write it: typed paths, bodies, parameters and
 * answers, problem documents included. Every line typechecks against the generated types.
 */
export async function runEveryOperation(baseUrl: string, liveKey: string): Promise<OperationResults> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${liveKey}` } });
  const recipient = 'generated-client';

  const minted = await client.POST('/v1/connect-tokens', { body: { recipient } });
  const token = minted.data?.token ?? '';

  // A browser without a stream: registered by the POST step, then polled.
  const registered = await client.POST('/v1/connect/{token}', { params: { path: { token } } });
  const browser = registered.data && 'browser_secret' in registered.data ? registered.data : undefined;

  const sent = await client.POST('/v1/notifications', {
    body: { recipient, title: 'From a generated client', data: { n: 1 } },
    params: { header: { 'Idempotency-Key': `gen-${Date.now()}` } },
  });
  const refused = await client.POST('/v1/notifications', { body: { recipient, title: '' } });
  const readBack = await client.GET('/v1/notifications/{id}', { params: { path: { id: sent.data?.id ?? 'ntf_x' } } });
  const missing = await client.GET('/v1/notifications/{id}', {
    params: { path: { id: 'ntf_00000000000000000000000000' } },
  });

  const polled = await client.POST('/v1/connect/{token}', {
    params: { path: { token } },
    body: { browser_id: browser?.browser_id ?? '', browser_secret: browser?.browser_secret ?? '' },
  });
  const pending = polled.data && 'notifications' in polled.data ? polled.data.notifications : [];
  const attemptId = pending[0]?.attempt_id ?? 'att_x';

  const events = await client.POST('/v1/events', {
    body: {
      browser_id: browser?.browser_id ?? '',
      browser_secret: browser?.browser_secret ?? '',
      events: [{ type: 'delivered', attempt_id: attemptId }],
    },
  });

  // The inbox, through the browser's credentials and through the key.
  const credentials = { browser_secret: browser?.browser_secret ?? '' };
  const browserPath = { params: { path: { id: browser?.browser_id ?? '' } } };
  const recipientPath = { params: { path: { recipient } } };
  const inboxPage = await client.POST('/v1/browsers/{id}/inbox', {
    ...browserPath,
    body: { ...credentials, limit: 5 },
  });
  const inboxCounts = await client.POST('/v1/browsers/{id}/inbox/counts', { ...browserPath, body: credentials });
  const seen = await client.POST('/v1/browsers/{id}/inbox/mark', {
    ...browserPath,
    body: { ...credentials, action: 'seen', all: true },
  });
  const recipientPage = await client.GET('/v1/recipients/{recipient}/inbox', {
    params: { path: { recipient }, query: { unread: 'true', limit: 5 } },
  });
  const recipientCounts = await client.GET('/v1/recipients/{recipient}/inbox/counts', recipientPath);
  const read = await client.POST('/v1/recipients/{recipient}/inbox/mark', {
    ...recipientPath,
    body: { action: 'read', ids: [sent.data?.id ?? ''] },
  });

  // The stream: its head is all a JSON client can read; the body is cancelled at once.
  const stream = await client.GET('/v1/connect/{token}', { params: { path: { token } }, parseAs: 'stream' });
  await stream.response.body?.cancel();

  // Web Push is off on this server (no VAPID subject): saving a subscription is refused with its
  // problem document, and removing one that was never saved succeeds.
  const pushSaved = await client.PUT('/v1/browsers/{id}/push-subscription', {
    params: { path: { id: browser?.browser_id ?? '' } },
    body: {
      browser_secret: browser?.browser_secret ?? '',
      endpoint: 'https://fcm.googleapis.com/fcm/send/generated-client',
      keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
      expiration_time: null,
    },
  });
  const pushRemoved = await client.DELETE('/v1/browsers/{id}/push-subscription', {
    params: { path: { id: browser?.browser_id ?? '' } },
    body: { browser_secret: browser?.browser_secret ?? '' },
  });

  const disconnected = await client.POST('/v1/browsers/{id}/disconnect', {
    params: { path: { id: browser?.browser_id ?? '' } },
    body: { browser_secret: browser?.browser_secret ?? '' },
  });
  const document = await client.GET('/v1/openapi.json');

  return {
    createNotification: { status: sent.response.status, id: sent.data?.id, attempts: sent.data?.attempts.length },
    createNotificationProblem: {
      status: refused.response.status,
      code: refused.error?.code,
      errors: refused.error?.errors?.length,
    },
    getNotification: { status: readBack.response.status, status_: readBack.data?.status },
    getNotificationMissing: { status: missing.response.status, code: missing.error?.code },
    createConnectToken: { status: minted.response.status, token: minted.data?.token },
    openStream: { status: stream.response.status, contentType: stream.response.headers.get('content-type') },
    connectBrowser: { status: registered.response.status, browserId: browser?.browser_id },
    connectBrowserPoll: { status: polled.response.status, pending: pending.length },
    postEvents: { status: events.response.status, accepted: events.data?.accepted },
    putPushSubscription: { status: pushSaved.response.status, code: pushSaved.error?.code },
    deletePushSubscription: { status: pushRemoved.response.status },
    disconnectBrowser: { status: disconnected.response.status },
    getOpenApiDocument: { status: document.response.status, openapi: (document.data as { openapi?: string })?.openapi },
    listBrowserInbox: {
      status: inboxPage.response.status,
      items: inboxPage.data?.data.length,
      unread: inboxPage.data?.counts.unread,
    },
    getBrowserInboxCounts: { status: inboxCounts.response.status, unread: inboxCounts.data?.unread },
    markBrowserInbox: {
      status: seen.response.status,
      changed: seen.data?.items.length,
      unread: seen.data?.counts.unread,
    },
    listRecipientInbox: {
      status: recipientPage.response.status,
      items: recipientPage.data?.data.length,
      unread: recipientPage.data?.counts.unread,
    },
    getRecipientInboxCounts: { status: recipientCounts.response.status, unread: recipientCounts.data?.unread },
    markRecipientInbox: {
      status: read.response.status,
      changed: read.data?.items.length,
      unread: read.data?.counts.unread,
    },
  };
}
