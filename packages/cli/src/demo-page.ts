/**
 * The demo page's markup, style and script, as strings: the page has no external resources, so
 * that it works offline and under a strict Content Security Policy.
 */

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The curl command that sends the demo recipient a notification, one option per line. */
export function demoCurl(origin: string, liveKey: string, recipient: string): string {
  const body = JSON.stringify({ recipient, title: 'Hello from Tidings', body: 'Sent with curl.' });
  return [
    `curl -X POST ${origin}/v1/notifications \\`,
    `  -H "Authorization: Bearer ${liveKey}" \\`,
    '  -H "Content-Type: application/json" \\',
    `  -d '${body}'`,
  ].join('\n');
}

/** The page's only stylesheet, inline; its hash goes in the Content Security Policy. */
export const demoStyle = `
:root { color-scheme: light dark; --bg: #f6f7f9; --card: #fff; --text: #1d2330; --muted: #667085;
  --line: #e4e7ec; --accent: #3b5bdb; --ok: #2b8a3e; --warn: #b35c00; --bad: #c92a2a; --code: #f1f3f5; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111418; --card: #1a1f26; --text: #e6e8eb; --muted: #98a2b3; --line: #2b323c;
    --accent: #7c96ff; --ok: #51cf66; --warn: #ffa94d; --bad: #ff6b6b; --code: #222a33; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); line-height: 1.5;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 800px; margin: 0 auto; padding: 32px 20px 48px; }
header h1 { margin: 0; font-size: 26px; letter-spacing: -0.01em; }
header h1 span { color: var(--muted); font-weight: 400; }
header p { margin: 6px 0 24px; color: var(--muted); }
h2 { margin: 0; font-size: 16px; }
code, pre { font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 18px 20px;
  margin-bottom: 16px; box-shadow: 0 1px 2px rgb(16 24 40 / 0.04); }
.row { display: flex; align-items: center; justify-content: space-between; gap: 12px; }
.muted { color: var(--muted); }
.pill { display: inline-flex; align-items: center; gap: 6px; padding: 2px 10px; border-radius: 999px;
  font-size: 13px; font-weight: 600; border: 1px solid currentColor; color: var(--warn); }
.pill::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: currentColor; }
.pill[data-status="open"] { color: var(--ok); }
.pill[data-status="closed"] { color: var(--muted); }
dl { display: grid; grid-template-columns: max-content 1fr; align-items: baseline; gap: 6px 16px; margin: 14px 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
button { font: inherit; font-size: 14px; padding: 6px 14px; border-radius: 8px; cursor: pointer;
  border: 1px solid var(--line); background: var(--card); color: var(--text); }
button:hover:not(:disabled) { border-color: var(--accent); color: var(--accent); }
button:disabled { cursor: default; color: var(--muted); }
button.small { font-size: 13px; padding: 3px 10px; }
.error { margin: 0 0 14px; color: var(--bad); font-size: 14px; }
pre { margin: 10px 0 0; padding: 12px 14px; background: var(--code); border-radius: 8px; overflow-x: auto; }
.card > p { margin: 8px 0 0; }
ol { list-style: none; margin: 12px 0 0; padding: 0; }
li { padding: 12px 0; border-top: 1px solid var(--line); }
li:first-child { border-top: 0; padding-top: 4px; }
li.fresh { animation: arrive 1.2s ease-out; }
@keyframes arrive { from { background: color-mix(in srgb, var(--accent) 14%, transparent); } to { background: transparent; } }
.item-head { display: flex; justify-content: space-between; gap: 12px; align-items: baseline; }
.item-head time { color: var(--muted); font-size: 13px; white-space: nowrap; }
.item-body { margin: 2px 0 8px; overflow-wrap: anywhere; }
.item-foot { display: flex; align-items: center; justify-content: space-between; gap: 12px; font-size: 13px; }
.item-foot code { color: var(--muted); overflow-wrap: anywhere; }
.item-foot a { color: var(--accent); margin-right: 12px; }
`;

/** The page's behaviour: connects with the SDK's script-tag build and renders what arrives. */
export const demoScript = `'use strict';
(() => {
  const byId = (id) => document.getElementById(id);
  const pill = byId('status');
  const browserField = byId('browser-id');
  const transportField = byId('transport');
  const errorLine = byId('error');
  const toggle = byId('toggle');
  const list = byId('list');
  const empty = byId('empty');
  const count = byId('count');
  const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  let connection = null;

  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const showError = (text) => {
    errorLine.textContent = text;
    errorLine.hidden = !text;
  };
  // Links only to http(s): a notification's url is data from the sender.
  const safeLink = (url) => {
    try {
      const parsed = new URL(url, location.href);
      return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
    } catch {
      return null;
    }
  };

  const onStatus = (status, detail = {}) => {
    pill.dataset.status = status;
    const ended = detail.reason === 'disconnect' || detail.reason === 'disconnected';
    pill.textContent = status === 'closed' && ended ? 'disconnected' : status;
    if (status === 'open') {
      browserField.textContent = detail.browserId;
      transportField.dataset.transport = detail.transport;
      transportField.textContent =
        (detail.transport === 'sse' ? 'Server-Sent Events' : 'polling') +
        (detail.resumed ? ' (resumed this tab\\'s browser)' : ' (new browser)');
      showError('');
    } else if (status === 'reconnecting') {
      const seconds = Math.ceil((detail.delayMs || 0) / 1000);
      const cause = detail.error ? detail.error.code + ': ' + detail.error.message + '. ' : '';
      showError(cause + 'Retrying in ' + seconds + ' s.');
    } else if (status === 'closed') {
      transportField.textContent = '—';
      if (ended) browserField.textContent = '—';
      if (detail.reason === 'disconnected') showError('This browser was disconnected elsewhere (another tab, or the server).');
      if (detail.error) showError(detail.error.code + ': ' + detail.error.message);
      toggle.textContent = 'Connect again';
    }
  };

  const onNotification = (notification) => {
    const item = element('li', 'fresh');
    const head = element('div', 'item-head');
    head.append(element('strong', 'item-title', notification.title));
    const time = element('time', '', clock.format(new Date(notification.created_at)));
    time.dateTime = notification.created_at;
    head.append(time);
    item.append(head);
    if (notification.body) item.append(element('p', 'item-body', notification.body));
    const foot = element('div', 'item-foot');
    foot.append(element('code', '', notification.attempt_id));
    const actions = element('div');
    const link = notification.url && safeLink(notification.url);
    if (link) {
      const anchor = element('a', '', 'Open link');
      anchor.href = link;
      anchor.target = '_blank';
      anchor.rel = 'noopener noreferrer';
      actions.append(anchor);
    }
    const clicked = element('button', 'small', 'Mark clicked');
    clicked.type = 'button';
    clicked.addEventListener('click', () => {
      connection?.clicked(notification.attempt_id);
      clicked.textContent = 'Clicked';
      clicked.disabled = true;
    });
    actions.append(clicked);
    foot.append(actions);
    item.append(foot);
    list.prepend(item);
    empty.hidden = true;
    count.textContent = list.children.length + ' received';
  };

  const start = () => {
    toggle.textContent = 'Disconnect';
    connection = Tidings.connect({
      baseUrl: location.origin,
      // Your own server does this for its signed-in user: see GET /demo/token.
      getToken: async () => {
        const response = await fetch('/demo/token', { cache: 'no-store' });
        if (!response.ok) throw new Error('GET /demo/token answered ' + response.status);
        return (await response.json()).token;
      },
      onNotification,
      onStatus,
      onError: (error) => console.warn('tidings', error.code, error.message),
    });
  };

  toggle.addEventListener('click', () => {
    if (connection) {
      const ending = connection;
      connection = null;
      ending.disconnect();
    } else {
      start();
    }
  });

  byId('copy').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    const text = byId('curl').textContent;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      getSelection().selectAllChildren(byId('curl'));
      button.textContent = 'Press Ctrl+C';
    }
    setTimeout(() => {
      button.textContent = 'Copy';
    }, 1500);
  });

  start();
})();
`;

/** What the page shows besides live data. */
export interface DemoPageInput {
  /** The server's origin as the browser reached it. */
  origin: string;
  recipient: string;
  liveKey: string;
}

/** The whole `GET /demo` document; every inserted value is escaped. */
export function demoPageHtml({ origin, recipient, liveKey }: DemoPageInput): string {
  const curl = escapeHtml(demoCurl(origin, liveKey, recipient));
  const who = escapeHtml(recipient);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Tidings demo</title>
<link rel="icon" href="data:,">
<style>${demoStyle}</style>
</head>
<body>
<main>
  <header>
    <h1>Tidings <span>demo</span></h1>
    <p>This tab is one browser of recipient <code>${who}</code>. Send it a notification and watch it arrive.</p>
  </header>

  <section class="card" aria-labelledby="connection-title">
    <div class="row">
      <h2 id="connection-title">Connection</h2>
      <span id="status" class="pill" data-status="connecting" role="status">connecting</span>
    </div>
    <dl>
      <dt>Recipient</dt><dd><code>${who}</code></dd>
      <dt>Browser</dt><dd><code id="browser-id">—</code></dd>
      <dt>Transport</dt><dd id="transport">—</dd>
      <dt>Server</dt><dd><code>${escapeHtml(origin)}</code></dd>
    </dl>
    <p id="error" class="error" hidden></p>
    <button id="toggle" type="button">Disconnect</button>
  </section>

  <section class="card" aria-labelledby="send-title">
    <div class="row">
      <h2 id="send-title">Send a notification</h2>
      <button id="copy" class="small" type="button">Copy</button>
    </div>
    <p class="muted">Paste this into a terminal. It uses the demo project's live key, which only a server may hold.</p>
    <pre id="curl">${curl}</pre>
  </section>

  <section class="card" aria-labelledby="list-title">
    <div class="row">
      <h2 id="list-title">Notifications</h2>
      <span id="count" class="muted">0 received</span>
    </div>
    <p id="empty" class="muted">Nothing yet. Run the curl above; what arrives shows here at once.</p>
    <ol id="list" aria-live="polite"></ol>
  </section>
</main>
<script src="/demo/tidings.global.js"></script>
<script src="/demo/demo.js"></script>
</body>
</html>
`;
}
