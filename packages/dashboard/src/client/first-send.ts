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
  errors?: { path?: string; message?: string }[];
}

/**
 * The fields a send's refusal may name, by the path the API gives them, with the rule of the
 * API (docs/api.md) in words where its own message is a validator's.
 */
const FIELDS: Record<string, { id: string; label: string; rule?: string }> = {
  title: { id: 'first-send-title-field', label: 'The title', rule: 'must be 1 to 200 characters' },
  body: { id: 'first-send-body', label: 'The body', rule: 'must be at most 2000 characters' },
  key: { id: 'first-send-key', label: 'The key' },
};

/** What is wrong with one field, in words: `The title must be 1 to 200 characters (it has 0)`. */
function fieldText(path: string, message: string): string | null {
  const field = FIELDS[path];
  if (!field) return null;
  if (!field.rule) return `${field.label} ${message}`;
  const input = document.getElementById(field.id) as HTMLInputElement | HTMLTextAreaElement | null;
  return `${field.label} ${field.rule} (it has ${input?.value.length ?? 0})`;
}

/** A refusal in plain words: what was wrong with each field, else the problem's own detail. */
function refusalText(problem: Problem, status: number): string {
  const fields = (problem.errors ?? [])
    .map((error) => fieldText(error.path ?? '', error.message ?? ''))
    .filter((line): line is string => line !== null);
  return fields.length > 0
    ? `Not sent: ${fields.join('; ')}.`
    : `Not sent: ${problem.detail ?? `HTTP ${status}`} (${problem.code ?? status}).`;
}

/** Marks the fields a refusal names (and clears the others), each with its message beside it. */
function markFields(problem: Problem): void {
  for (const [path, field] of Object.entries(FIELDS)) {
    const input = document.getElementById(field.id);
    if (!input) continue;
    const error = (problem.errors ?? []).find((item) => item.path === path);
    const message = error ? fieldText(path, error.message ?? '') : null;
    const errorId = `${field.id}-error`;
    document.getElementById(errorId)?.remove();
    const described = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id && id !== errorId);
    if (message) {
      const note = document.createElement('p');
      note.className = 'field-error';
      note.id = errorId;
      note.textContent = `${message}.`;
      input.parentElement?.append(note);
      input.setAttribute('aria-invalid', 'true');
      described.push(errorId);
    } else {
      input.removeAttribute('aria-invalid');
    }
    if (described.length > 0) input.setAttribute('aria-describedby', described.join(' '));
    else input.removeAttribute('aria-describedby');
  }
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
  /** The browsers this tab has been (one per connection: a tab shown again connects anew). */
  const ownBrowsers = new Set<string>();
  let connection: TidingsConnection | null = null;
  const browserLabel = (browserId: string) => (ownBrowsers.has(browserId) ? 'this tab' : 'another browser');

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
    // The notification's page names this tab's attempt "this tab" too.
    const tab = send?.attempts.find((attempt) => ownBrowsers.has(attempt.browser_id))?.browser_id;
    link.href = `${data.notificationBase ?? ''}${id}${tab ? `?tab=${encodeURIComponent(tab)}` : ''}`;
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
      line.dataset.browser = browserLabel(attempt.browser_id);
      line.append(
        `Attempt to ${browserLabel(attempt.browser_id)} `,
        span(attempt.status, `badge status-${attempt.status}`),
        ` delivered ${time(attempt.delivered_at)} · displayed ${time(attempt.displayed_at)} · clicked ${time(attempt.clicked_at)}`,
      );
      lines.push(line);
    }
    item.replaceChildren(...lines);
  }

  /** Connects this tab as a new browser of the recipient. */
  const connectTab = (): TidingsConnection =>
    Tidings.connect({
      baseUrl: data.apiUrl ?? '',
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
          const browserId = connection?.browserId();
          if (browserId) {
            ownBrowsers.add(browserId);
            status.dataset.browserId = browserId;
          }
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
        body: JSON.stringify({
          key: key.trim(),
          title: (document.getElementById('first-send-title-field') as HTMLInputElement | null)?.value ?? '',
          body: (document.getElementById('first-send-body') as HTMLTextAreaElement | null)?.value ?? '',
        }),
        credentials: 'same-origin',
      });
      const body = (await response.json().catch(() => ({}))) as Partial<LiveSend> & Problem;
      markFields(response.status === 201 ? {} : body);
      if (response.status === 201 && body.id) {
        say(`Sent ${body.id}: POST /v1/notifications answered 201.`, 'sent');
        if (!sends.has(body.id)) sends.set(body.id, body as LiveSend);
        render(body.id);
      } else {
        say(refusalText(body, response.status), 'refused');
      }
    } catch {
      say('Not sent: the dashboard could not be reached.', 'refused');
    } finally {
      button.disabled = false;
    }
  });

  // The sends to this recipient and their attempts, as the live view streams them.
  let source: EventSource | null = null;
  const follow = () => {
    if (source || !data.stream) return;
    source = new EventSource(data.stream);
    const update = (event: MessageEvent<string>) => {
      const send = JSON.parse(event.data) as LiveSend;
      if (send.recipient !== data.recipient) return;
      sends.set(send.id, send);
      render(send.id);
    };
    source.addEventListener('send', update);
    source.addEventListener('update', update);
  };

  const details = panel.querySelector<HTMLDetailsElement>('details[data-first-send-details]');
  const begin = () => {
    if (connection) return;
    connection = connectTab();
    follow();
  };

  // A tab that goes away disconnects its browser (the SDK's disconnect: a beacon with the browser's
  // secret to POST /v1/browsers/{id}/disconnect), so that a send made from another tab is not held
  // pending for it until the stale sweep. A tab shown again from the back-forward cache connects
  // as a new browser. A pasted key leaves with the page, as a revealed one does.
  window.addEventListener('pagehide', () => {
    const pasted = document.getElementById('first-send-key') as HTMLInputElement | null;
    if (pasted) pasted.value = '';
    connection?.disconnect();
    connection = null;
  });
  window.addEventListener('pageshow', (event) => {
    if (event.persisted && (!details || details.open)) begin();
  });

  // Folded (a project that has sent), the tab connects only once the panel is unfolded.
  if (!details || details.open) begin();
  else details.addEventListener('toggle', () => details.open && begin());
}

function start(): void {
  const panel = document.getElementById('first-send');
  if (panel) setUp(panel);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
