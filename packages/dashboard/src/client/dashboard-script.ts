/**
 * The dashboard's one script. Every page works without it; with it, a new key's page gets a copy
 * button and forgets the key as soon as it is left, and the live view opens its stream.
 */

function setStatus(text: string): void {
  const status = document.getElementById('copy-status');
  if (status) status.textContent = text;
}

/** Selects the element's text, so that the person can copy it by hand when nothing else works. */
function selectText(element: Element): void {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

async function copy(element: Element, what: string): Promise<void> {
  const text = element.textContent?.trim() ?? '';
  // The Clipboard API exists only in secure contexts (https, localhost); a plain-http LAN install
  // falls back to selecting the text and the older copy command.
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      setStatus('Copied to the clipboard.');
      return;
    } catch {
      // Refused (permissions): fall back below.
    }
  }
  selectText(element);
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  setStatus(copied ? 'Copied to the clipboard.' : `The ${what} is selected: press Ctrl+C (⌘C on a Mac) to copy it.`);
}

function setUpReveal(): void {
  const reveal = document.querySelector<HTMLElement>('[data-replace-url]');
  if (!reveal) return;
  // A reload of this entry loads the keys list, not the POST that revealed the key.
  history.replaceState(null, '', reveal.dataset.replaceUrl);
  // What is revealed, in the status line's words: a key, unless the page names it (a secret).
  const what = reveal.dataset.revealed ?? 'key';
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
    const target = document.getElementById(button.dataset.copy ?? '');
    if (!target) continue;
    button.hidden = false;
    button.addEventListener('click', () => void copy(target, what));
  }
  setStatus(`Copy the ${what} with the button, or select it.`);
  // Leaving the page wipes the key, so back/forward from the page cache cannot show it again.
  window.addEventListener('pagehide', () => {
    for (const secret of document.querySelectorAll('[data-secret]')) secret.textContent = '(hidden: shown once only)';
  });
}

/** One send as the live stream describes it. */
interface LiveSend {
  id: string;
  recipient: string;
  title: string;
  mode: string;
  created_at: string;
  status: string;
  attempts: { id: string; browser_id: string; status: string; via: 'stream' | 'poll' | 'push' | null }[];
}

/** The path an attempt went out by, as the log of sends words it. */
const PATHS = { stream: 'event stream', poll: 'poll', push: 'Web Push' };

function element(tag: string, text: string, className?: string): HTMLElement {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** Puts a send in the list, or updates it in place; text only, never markup from the stream. */
function showSend(list: HTMLElement, send: LiveSend): void {
  let item = list.querySelector<HTMLElement>(`li[data-id="${CSS.escape(send.id)}"]`);
  const isNew = !item;
  item ??= document.createElement('li');
  item.dataset.id = send.id;
  item.dataset.status = send.status;
  item.replaceChildren();
  const link = document.createElement('a');
  link.href = `${list.dataset.notificationBase ?? ''}${send.id}`;
  link.textContent = send.title;
  const head = document.createElement('div');
  head.append(link, ' ', element('span', send.mode, `badge ${send.mode}`), ' ', element('code', send.recipient));
  head.append(' ', element('span', `${send.created_at.slice(11, 19)} UTC · ${send.status}`, 'muted'));
  const attempts = document.createElement('div');
  attempts.className = 'muted';
  attempts.textContent =
    send.attempts
      .map((attempt) => `${attempt.browser_id}: ${attempt.status}${attempt.via ? ` via ${PATHS[attempt.via]}` : ''}`)
      .join(' · ') || 'no attempts';
  item.append(head, attempts);
  if (isNew) list.prepend(item);
}

function setUpLive(): void {
  const list = document.getElementById('live-list');
  const status = document.getElementById('live-status');
  if (!list?.dataset.stream || !status) return;
  const source = new EventSource(list.dataset.stream);
  const show = (event: MessageEvent<string>) => showSend(list, JSON.parse(event.data) as LiveSend);
  source.addEventListener('send', show);
  source.addEventListener('update', show);
  source.addEventListener('ready', () => {
    status.textContent = 'Live: new sends appear here as they happen.';
    status.dataset.status = 'open';
  });
  source.addEventListener('error', () => {
    status.textContent = 'Reconnecting…';
    status.dataset.status = 'reconnecting';
  });
}

function start(): void {
  setUpReveal();
  setUpLive();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
