/**
 * The first send (docs/dashboard.md#the-first-send): this tab connects as a browser of the
 * account's own recipient with the browser SDK (`tidings.global.js`, loaded just before), the
 * button sends to it through the public API, and the sends to that recipient are shown with their
 * attempts and receipts from the live view's stream. Text only: nothing from the server or the
 * stream is ever put in the page as markup.
 */
import type { connect, TidingsConnection, TidingsNotification } from '@tidings/browser';

/** One send as the live stream describes it. */
interface LiveSend {
  id: string;
  recipient: string;
  title: string;
  mode: string;
  created_at: string;
  status: string;
  attempts: {
    id: string;
    browser_id: string;
    status: string;
    delivered_at?: string | null;
    displayed_at?: string | null;
    clicked_at?: string | null;
  }[];
}

/** A problem document, as far as the page reads it. */
interface Problem {
  code?: string;
  detail?: string;
}

function time(at: string | null | undefined): string {
  return at ? `${at.slice(11, 19)} UTC` : '—';
}

function span(text: string, className?: string): HTMLElement {
  const node = document.createElement('span');
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

function setUp(panel: HTMLElement): void {
  // What `tidings.global.js`, the SDK's script-tag build loaded just before, defines.
  const Tidings = (globalThis as { Tidings?: { connect: typeof connect } }).Tidings;
  const controls = panel.querySelector<HTMLElement>('[data-first-send-controls]');
  const status = document.getElementById('first-send-status');
  const list = document.getElementById('first-send-list');
  const button = document.getElementById('first-send-button') as HTMLButtonElement | null;
  const data = panel.dataset;
  if (!controls || !status || !list || !Tidings || !data.tokenUrl || !data.sendUrl || !data.apiUrl) return;
  controls.hidden = false;

  const say = (text: string, state: string) => {
    status.textContent = text;
    status.dataset.status = state;
  };
  /** What this tab received, by notification id: its attempt id, for the click receipt. */
  const received = new Map<string, string>();
  const sends = new Map<string, LiveSend>();
  let connection: TidingsConnection | null = null;

  function render(id: string): void {
    let item = list?.querySelector<HTMLElement>(`li[data-id="${CSS.escape(id)}"]`) ?? null;
    if (!item) {
      item = document.createElement('li');
      item.dataset.id = id;
      list?.prepend(item);
    }
    const send = sends.get(id);
    const attemptId = received.get(id);
    item.dataset.status = send?.status ?? 'received';
    item.dataset.received = attemptId ? 'true' : 'false';
    const link = document.createElement('a');
    link.href = `${data.notificationBase ?? ''}${id}`;
    link.textContent = send?.title ?? id;
    // Opening it is the click a real notification would get: the SDK reports it.
    link.addEventListener('click', () => {
      const attempt = received.get(id);
      if (attempt) connection?.clicked(attempt);
    });
    const head = document.createElement('div');
    head.append(link, ' ');
    if (send)
      head.append(span(send.mode, `badge ${send.mode}`), ' ', span(`${time(send.created_at)} · ${send.status}`));
    const lines: HTMLElement[] = [head];
    if (attemptId) lines.push(span('Received in this tab.', 'muted'));
    for (const attempt of send?.attempts ?? []) {
      const line = document.createElement('div');
      line.className = 'muted';
      line.dataset.attempt = attempt.id;
      line.dataset.attemptStatus = attempt.status;
      line.dataset.displayed = attempt.displayed_at ? 'true' : 'false';
      line.dataset.clicked = attempt.clicked_at ? 'true' : 'false';
      line.append(
        'Attempt ',
        span(attempt.status, `badge status-${attempt.status}`),
        ` delivered ${time(attempt.delivered_at)} · displayed ${time(attempt.displayed_at)} · clicked ${time(attempt.clicked_at)}`,
      );
      lines.push(line);
    }
    item.replaceChildren(...lines);
  }

  connection = Tidings.connect({
    baseUrl: data.apiUrl,
    getToken: async () => {
      const response = await fetch(data.tokenUrl ?? '', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
        credentials: 'same-origin',
      });
      const body = (await response.json().catch(() => ({}))) as { token?: string } & Problem;
      if (!response.ok || !body.token)
        throw new Error(`${body.code ?? 'HTTP_ERROR'}: ${body.detail ?? response.status}`);
      return body.token;
    },
    onNotification: (notification: TidingsNotification) => {
      received.set(notification.notification_id, notification.attempt_id);
      // Shown in the page: the SDK reports it displayed (delivered is sent for us).
      connection?.displayed(notification.attempt_id);
      if (!sends.has(notification.notification_id)) {
        sends.set(notification.notification_id, {
          id: notification.notification_id,
          recipient: data.recipient ?? '',
          title: notification.title,
          mode: 'live',
          created_at: notification.created_at,
          status: 'pending',
          attempts: [],
        });
      }
      render(notification.notification_id);
    },
    onStatus: (state, detail) => {
      if (state === 'open') {
        say(`This tab is connected as a browser of ${data.recipient ?? ''}.`, 'open');
        if (button) button.disabled = false;
      } else if (state === 'reconnecting') {
        say('Reconnecting this tab…', 'reconnecting');
      } else if (state === 'closed') {
        const error = detail?.error;
        say(`This tab is not connected${error ? `: ${error.message} (${error.code})` : ''}.`, 'closed');
        if (button) button.disabled = true;
      }
    },
  });

  button?.addEventListener('click', async () => {
    const pasted = document.getElementById('first-send-key') as HTMLInputElement | null;
    const key =
      data.keyFrom === 'screen' ? (document.getElementById('new-key')?.textContent ?? '') : (pasted?.value ?? '');
    button.disabled = true;
    say('Sending…', 'sending');
    try {
      const response = await fetch(data.sendUrl ?? '', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ key: key.trim() }),
        credentials: 'same-origin',
      });
      const body = (await response.json().catch(() => ({}))) as Partial<LiveSend> & Problem;
      if (response.status === 201 && body.id) {
        say(`Sent ${body.id}: POST /v1/notifications answered 201.`, 'sent');
        if (!sends.has(body.id)) sends.set(body.id, body as LiveSend);
        render(body.id);
      } else {
        say(`Not sent: ${body.detail ?? `HTTP ${response.status}`} (${body.code ?? response.status}).`, 'refused');
      }
    } catch {
      say('Not sent: the dashboard could not be reached.', 'refused');
    } finally {
      button.disabled = false;
    }
  });

  // A pasted key leaves with the page, as a revealed one does.
  window.addEventListener('pagehide', () => {
    const pasted = document.getElementById('first-send-key') as HTMLInputElement | null;
    if (pasted) pasted.value = '';
  });

  // The sends to this recipient and their attempts, as the live view streams them.
  if (data.stream) {
    const source = new EventSource(data.stream);
    const update = (event: MessageEvent<string>) => {
      const send = JSON.parse(event.data) as LiveSend;
      if (send.recipient !== data.recipient) return;
      sends.set(send.id, send);
      render(send.id);
    };
    source.addEventListener('send', update);
    source.addEventListener('update', update);
  }
}

function start(): void {
  const panel = document.getElementById('first-send');
  if (panel) setUp(panel);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
