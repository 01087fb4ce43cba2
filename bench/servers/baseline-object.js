// What the baselines answer: a notification-shaped object of the same size as Tidings' answer,
// built per request from the parsed body, so that the baselines serialize about as much JSON.
let counter = 0;

export function notificationLike(body, id = `ntf_${String(++counter).padStart(26, '0')}`) {
  const now = new Date().toISOString();
  return {
    object: 'notification',
    id,
    mode: 'live',
    recipient: body.recipient,
    title: body.title,
    body: body.body ?? null,
    url: body.url ?? null,
    icon: null,
    tag: null,
    data: body.data ?? null,
    ttl: 86400,
    created_at: now,
    expires_at: now,
    status: 'pending',
    attempts: [
      {
        object: 'attempt',
        id: 'att_00000000000000000000000000',
        browser_id: 'brw_00000000000000000000000000',
        status: 'accepted',
        final: false,
        accepted_at: now,
        sent_at: null,
        delivered_at: null,
        failed_at: null,
        expired_at: null,
        reason: null,
        displayed_at: null,
        clicked_at: null,
        dismissed_at: null,
      },
    ],
  };
}

/** The body a read returns in the baselines. */
export const storedBody = {
  recipient: 'user-0',
  title: 'Your order has shipped',
  body: 'Order #1042 left the warehouse and should arrive on Thursday.',
  url: '/orders/1042',
  data: { orderId: 1042 },
};

/** The data of one notification event, as the peers of the fan-out write it (and Tidings does). */
export function eventPayload(body, notificationId, seq) {
  const now = new Date().toISOString();
  return {
    attempt_id: `att_${String(seq).padStart(26, '0')}`,
    notification_id: notificationId,
    title: body.title,
    body: body.body ?? null,
    url: body.url ?? null,
    icon: null,
    tag: null,
    data: body.data ?? null,
    created_at: now,
    expires_at: now,
  };
}
