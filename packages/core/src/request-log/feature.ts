import type { Feature } from '../features.js';
import { bodyTextOf } from '../pipeline/http/body.js';
import { textAnswerOf } from '../pipeline/http/responses.js';
import { type RequestLogOptions, resolveRequestLogOptions } from './options.js';
import type { RequestLogStore } from './store.js';
import { createRequestLogWriter } from './writer.js';

/** The path of a send. */
const SEND_PATH = '/v1/notifications';
const READ_PREFIX = '/v1/notifications/';

/** `GET /v1/notifications/{id}`: a read of one notification. */
function isNotificationRead(pathname: string, params: Readonly<Record<string, string>>): boolean {
  return (
    params.id !== undefined && pathname.startsWith(READ_PREFIX) && pathname.indexOf('/', READ_PREFIX.length) === -1
  );
}

/** Request log entries deleted per transaction: a backlog is deleted batch by batch, never in one long lock. */
const PURGE_BATCH = 1_000;
/** Batches per purge at most; a larger backlog is left to the next purges. */
const PURGE_BATCHES = 20;

/** Deletes request log entries past the retention, in bounded batches. */
async function purgeRequestLog(store: RequestLogStore, before: number): Promise<void> {
  for (let batch = 0; batch < PURGE_BATCHES; batch++) {
    const deleted = await store.purgeRequestLog({ before, limit: PURGE_BATCH });
    if (deleted < PURGE_BATCH) return;
  }
}

/**
 * The request log (docs/api.md#request-log): every API request of a project, with its bodies
 * (secrets removed), for the dashboard's Requests page. A request is handed to a writer as it
 * was answered, and written in batches after its answer; entries past the retention are deleted
 * by the sweep, also with `record: false`, which records nothing. Bad options throw here.
 * Without the feature nothing is recorded and nothing is deleted.
 */
export function requestLog(options: RequestLogOptions = {}): Feature {
  const settings = resolveRequestLogOptions(options);
  return {
    name: 'request-log',
    install({ options: instance }) {
      const { store, logger, metrics } = instance;
      const sweep = async ({ now, purge }: { now: number; purge: boolean }) => {
        if (purge) await purgeRequestLog(store, now - settings.retentionMs);
      };
      const reported = { enabled: settings.record, retentionDays: Math.round(settings.retentionMs / 86_400_000) };
      if (!settings.record) return { sweep, settings: { requestLog: reported } };
      const writer = createRequestLogWriter({
        store,
        logger,
        metrics,
        maxBufferedEntries: settings.maxBufferedEntries,
        flushIntervalMs: settings.flushIntervalMs,
        batchSize: settings.batchSize,
      });
      return {
        // The request as it was: the writer redacts it later.
        answered({ ctx, caller, pathname, response, started }) {
          const { request } = ctx;
          const { status } = response;
          // A successful read of a notification is counted, not kept: pollers read each send
          // many times, and one entry per key and flush says how many reads there were.
          if (request.method === 'GET' && status >= 200 && status < 300 && isNotificationRead(pathname, ctx.params)) {
            writer.countRead({
              projectId: caller.projectId,
              keyPrefix: caller.keyPrefix,
              mode: caller.mode,
              notificationId: ctx.params.id!,
              createdAt: ctx.now,
              durationMs: performance.now() - started,
            });
            return;
          }
          // A taken send is its notification, which keeps its payload (the request's body after
          // defaults), recipient, key, request id and Idempotency-Key: its entry keeps neither
          // body, and the dashboard shows the notification's payload in their place.
          const sendTaken = request.method === 'POST' && status >= 200 && status < 300 && pathname === SEND_PATH;
          const href = request.url;
          const queryAt = href.indexOf('?');
          const hashAt = href.indexOf('#', queryAt);
          writer.record({
            requestId: ctx.requestId,
            projectId: caller.projectId,
            keyPrefix: caller.keyPrefix,
            mode: caller.mode,
            method: request.method,
            pathname,
            query: queryAt === -1 ? '' : href.slice(queryAt, hashAt === -1 ? undefined : hashAt),
            params: ctx.params,
            status,
            idempotencyKey: request.headers.get('idempotency-key'),
            createdAt: ctx.now,
            durationMs: performance.now() - started,
            requestText: sendTaken ? null : bodyTextOf(request),
            responseText: sendTaken ? null : (textAnswerOf(response)?.text ?? null),
            concerns: ctx.concerns,
          });
        },
        sweep,
        settings: { requestLog: reported },
        // After the instance's streams have closed: every request answered is held, and written now.
        close: () => writer.close(),
      };
    },
  };
}
