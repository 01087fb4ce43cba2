/** @jsxImportSource hono/jsx */
import { type NotificationObject, TidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { type DashboardEnv, type Deps, ownedProject, signedInOf } from '../context.js';
import { render } from '../render.js';
import { LivePage } from '../views/live-page.js';

/** The newest sends the live view keeps in sight; a change to an older one is not shown. */
const WATCHED = 25;
/** How often the view re-reads the newest sends for what the hub does not carry. */
const REFRESH_MS = 2000;
/** A stream ends after this long; the browser's EventSource reconnects, and the session is checked again. */
const MAX_STREAM_MS = 15 * 60_000;

/** A recipient id (docs/api.md#model). */
const RECIPIENT = /^[A-Za-z0-9_\-.:@]{1,128}$/;

/** What the page shows of one send, and what tells that it changed. */
function summary(item: NotificationObject) {
  return {
    id: item.id,
    recipient: item.recipient,
    title: item.title,
    mode: item.mode,
    created_at: item.created_at,
    status: item.status,
    attempts: item.attempts.map((attempt) => ({
      id: attempt.id,
      browser_id: attempt.browser_id,
      status: attempt.status,
      // The path it went out by: stream, poll or push (null while not sent).
      via: attempt.via,
      // Receipts: the first send shows them as the SDK reports them.
      delivered_at: attempt.delivered_at,
      displayed_at: attempt.displayed_at,
      clicked_at: attempt.clicked_at,
    })),
  };
}

/**
 * The live view: a Server-Sent Events stream of the project's sends and their attempts' changes.
 * A message on the hub (a send delivered to a browser, a browser closed) wakes it at once; a
 * re-read every 2 s picks up what the hub does not carry (receipts, test-mode sends, sends
 * recorded by another instance).
 */
export function registerLiveRoutes(app: Hono<DashboardEnv>, deps: Deps): void {
  const { tidings } = deps;

  app.get('/projects/:id/live', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    return render(c, <LivePage project={project} />);
  });

  app.get('/projects/:id/live/stream', async (c) => {
    const project = await ownedProject(deps, signedInOf(c), c.req.param('id'));
    // `?recipient=` keeps one recipient's sends in sight (the first send's panel).
    const recipient = c.req.query('recipient');
    if (recipient !== undefined && !RECIPIENT.test(recipient)) {
      throw new TidingsError('VALIDATION_FAILED', 'recipient is not a valid recipient id');
    }
    c.header('Cache-Control', 'no-store');
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const seen = new Map<string, string>();
      let wake: (() => void) | null = null;
      const unsubscribe = tidings.admin.watch(() => wake?.());
      let closed = false;
      stream.onAbort(() => {
        closed = true;
        wake?.();
      });
      const started = Date.now();
      try {
        let first = true;
        while (!closed && Date.now() - started < MAX_STREAM_MS) {
          const items = await tidings.admin
            .listNotifications(project.id, {
              limit: WATCHED,
              ...(recipient === undefined ? {} : { recipient }),
            })
            .catch((error) => {
              if (error instanceof TidingsError && error.code === 'NOT_FOUND') return null;
              throw error;
            });
          // The project was deleted (in another tab, by its owner): the stream ends.
          if (items === null) break;
          // Oldest first, so the page can put each new one on top.
          for (const item of [...items].reverse()) {
            const data = JSON.stringify(summary(item));
            if (seen.get(item.id) === data) continue;
            const event = seen.has(item.id) || first ? 'update' : 'send';
            seen.set(item.id, data);
            await stream.writeSSE({ event, data });
          }
          if (first) await stream.writeSSE({ event: 'ready', data: '{}' });
          first = false;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, REFRESH_MS);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
      } finally {
        unsubscribe();
      }
    });
  });
}
