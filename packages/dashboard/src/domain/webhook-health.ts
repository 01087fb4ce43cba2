import type { WebhookMessageObject } from '@tidings/core';

/** How far back an endpoint's health looks. */
export const HEALTH_WINDOW_MS = 24 * 3_600_000;
/** The most messages of that window it reads (the newest). */
export const HEALTH_MESSAGES = 100;

/** How an endpoint has answered lately, from its newest messages. */
export interface EndpointHealth {
  /** Messages of the window that had at least one request. */
  tried: number;
  /** Of those, the ones it took (answered 2xx). */
  delivered: number;
  /** `delivered / tried`; null when nothing was tried. */
  rate: number | null;
  /** The message whose request was the latest, if any. */
  last: WebhookMessageObject | null;
  /** The latest request was not taken: the message still retries, or was given up. */
  failing: boolean;
  /** How the latest request ended when it was not taken (`HTTP 500`, `a timeout`), once read. */
  lastOutcome?: string;
}

/** The health of an endpoint from its messages of the window (any order). */
export function endpointHealth(messages: readonly WebhookMessageObject[]): EndpointHealth {
  const tried = messages.filter((message) => message.attempts > 0 && message.last_attempt_at !== null);
  const delivered = tried.filter((message) => message.status === 'delivered').length;
  let last: WebhookMessageObject | null = null;
  for (const message of tried) {
    if (!last || message.last_attempt_at! > last.last_attempt_at!) last = message;
  }
  return {
    tried: tried.length,
    delivered,
    rate: tried.length === 0 ? null : delivered / tried.length,
    last,
    failing: last !== null && last.status !== 'delivered',
  };
}
