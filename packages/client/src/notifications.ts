import { TidingsError, TidingsWaitTimeoutError } from './errors.js';
import type { ResolvedClientOptions } from './options.js';
import { type RequestOptions, sendApiCall } from './request.js';
import { randomUuid } from './runtime.js';
import type { NotificationObject, SendNotificationParams } from './types.js';

/** Options of `notifications.send`. */
export interface SendOptions extends RequestOptions {
  /**
   * 1–255 printable ASCII characters, kept by the server for 24 hours. Every retry of the call
   * reuses it, so the notification is sent at most once; when none is given the client generates
   * one (a random UUID) for the call. Give your own, derived from the event you notify about (e.g.
   * `order-42-shipped`), to make retries across your own process's restarts safe as well.
   */
  idempotencyKey?: string;
}

/** Options of `notifications.waitUntilFinal`. */
export interface WaitOptions {
  /**
   * How long to wait in all, in milliseconds; then it rejects with a `TidingsWaitTimeoutError`
   * carrying the notification as last read.
   * @default 60000
   */
  timeoutMs?: number;
  /**
   * Time between two polls, in milliseconds (at least 1000).
   * @default the client's `pollIntervalMs` (2000)
   */
  intervalMs?: number;
  /** Stops the wait; it then rejects with code `ABORTED`. */
  signal?: AbortSignal;
}

/** `client.notifications`. */
export interface Notifications {
  /**
   * Sends a notification to every connected browser of `params.recipient` (`POST
   * /v1/notifications`) and resolves with it, `201` or an idempotent replay alike.
   */
  send(params: SendNotificationParams, options?: SendOptions): Promise<NotificationObject>;
  /** Reads a notification and the status of its attempts (`GET /v1/notifications/{id}`). */
  retrieve(id: string, options?: RequestOptions): Promise<NotificationObject>;
  /**
   * Polls the notification every `intervalMs` until every attempt is final (`status:
   * "completed"`), and resolves with it. A live attempt becomes final when the browser confirms
   * delivery, disconnects, or the notification's ttl passes; a test-mode one is final at once.
   */
  waitUntilFinal(id: string, options?: WaitOptions): Promise<NotificationObject>;
}

export function createNotifications(options: ResolvedClientOptions): Notifications {
  const retrieve = (id: string, requestOptions?: RequestOptions) =>
    sendApiCall<NotificationObject>(
      options,
      { method: 'GET', path: `/v1/notifications/${encodeURIComponent(id)}` },
      requestOptions,
    );

  return {
    send: (params, sendOptions = {}) => {
      const { idempotencyKey = randomUuid(), ...requestOptions } = sendOptions;
      return sendApiCall<NotificationObject>(
        options,
        { method: 'POST', path: '/v1/notifications', body: params, headers: { 'Idempotency-Key': idempotencyKey } },
        requestOptions,
      );
    },

    retrieve,

    async waitUntilFinal(id, waitOptions = {}) {
      const { timeoutMs = 60_000, intervalMs = options.pollIntervalMs, signal } = waitOptions;
      if (!Number.isInteger(timeoutMs) || timeoutMs < 0) throw new TypeError('timeoutMs must be an integer ≥ 0');
      if (!Number.isInteger(intervalMs) || intervalMs < 1000) throw new TypeError('intervalMs must be at least 1000');
      const { now, sleep } = options.environment;
      const deadline = now() + timeoutMs;
      for (;;) {
        const notification = await retrieve(id, { signal });
        if (notification.status === 'completed') return notification;
        const remainingMs = deadline - now();
        if (remainingMs <= 0) throw new TidingsWaitTimeoutError(notification, timeoutMs);
        // The last poll falls on the deadline, so a notification completed just before it is seen.
        try {
          await sleep(Math.min(intervalMs, remainingMs), signal);
        } catch (cause) {
          throw new TidingsError('ABORTED', 'The wait was aborted', { cause });
        }
      }
    },
  };
}
