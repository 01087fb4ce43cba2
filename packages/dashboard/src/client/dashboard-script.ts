/**
 * The dashboard's one script. Every page works without it; with it, a new key's page gets a copy
 * button and forgets the key as soon as it is left, the live view opens its stream, a field
 * with a length limit counts its characters, and a form sent after the session ended is filled
 * in again once its page is back after sign-in.
 */

import { setUpCounters } from './length-counter.js';
import { browserHref, recipientHref } from './recipient-hrefs.js';

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

/** The text of what is revealed: a list one item a line (recovery codes), else the element's text. */
function revealedText(element: Element): string {
  const items = element.querySelectorAll('li');
  if (items.length === 0) return element.textContent?.trim() ?? '';
  return [...items].map((item) => item.textContent?.trim() ?? '').join('\n');
}

/** Saves `text` as a file named `filename`, made in the page (nothing is asked of the server). */
function download(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([`${text}\n`], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

async function copy(element: Element, what: string): Promise<void> {
  const text = revealedText(element);
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
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-download]')) {
    const target = document.getElementById(button.dataset.download ?? '');
    if (!target) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      download(revealedText(target), button.dataset.filename ?? 'tidings.txt');
      setStatus(`The ${what} are saved as ${button.dataset.filename ?? 'a file'}.`);
    });
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
  const root = list.dataset.projectRoot ?? '';
  const recipient = document.createElement('a');
  recipient.href = recipientHref(root, send.recipient);
  recipient.append(element('code', send.recipient));
  const head = document.createElement('div');
  head.append(link, ' ', element('span', send.mode, `badge ${send.mode}`), ' ', recipient);
  head.append(' ', element('span', `${send.created_at.slice(11, 19)} UTC · ${send.status}`, 'muted'));
  const attempts = document.createElement('div');
  attempts.className = 'muted';
  send.attempts.forEach((attempt, index) => {
    const browser = document.createElement('a');
    browser.href = browserHref(root, attempt.browser_id);
    browser.textContent = attempt.browser_id;
    if (index > 0) attempts.append(' · ');
    attempts.append(browser, `: ${attempt.status}${attempt.via ? ` via ${PATHS[attempt.via]}` : ''}`);
  });
  if (send.attempts.length === 0) attempts.textContent = 'no attempts';
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

/** What a form held when it was sent: kept for this tab only, until the next page shows. */
interface SentForm {
  page: string;
  action: string;
  fields: [string, string][];
}
const SENT_FORM = 'tidings:sent-form';
const SESSION_ENDED = 'tidings:session-ended';
/** Fields never kept, even for this tab: passwords, codes, secrets, tokens. */
const SECRET_FIELD = /password|secret|code|token/i;
/** The pages of signing in, through which a kept form waits for its page. */
const SIGN_IN_PAGE = /\/(login|signup|reset)(\/|$)/;

function keepSentForms(): void {
  document.addEventListener('submit', (event) => {
    const form = event.target as HTMLFormElement;
    if (form.method !== 'post' || SIGN_IN_PAGE.test(new URL(form.action).pathname)) return;
    const fields: [string, string][] = [];
    for (const field of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
      'input, textarea, select',
    )) {
      const type = field instanceof HTMLInputElement ? field.type : '';
      if (!field.name || SECRET_FIELD.test(field.name) || ['password', 'hidden', 'file', 'submit'].includes(type)) {
        continue;
      }
      if ((type === 'checkbox' || type === 'radio') && !(field as HTMLInputElement).checked) continue;
      fields.push([field.name, field.value]);
    }
    const sent: SentForm = { page: location.pathname + location.search, action: form.action, fields };
    sessionStorage.setItem(SENT_FORM, JSON.stringify(sent));
  });
}

/**
 * After sign-in, the page whose form the ended session refused gets that form's fields back, and
 * says so; any other page forgets what was kept. Pages of signing in keep it, and the sign-in
 * page that tells of an ended session marks it as refused.
 */
function restoreSentForm(): void {
  if (document.querySelector('[data-session-ended]')) sessionStorage.setItem(SESSION_ENDED, '1');
  if (SIGN_IN_PAGE.test(location.pathname)) return;
  const kept = sessionStorage.getItem(SENT_FORM);
  const refused = sessionStorage.getItem(SESSION_ENDED) === '1';
  sessionStorage.removeItem(SENT_FORM);
  sessionStorage.removeItem(SESSION_ENDED);
  if (!kept || !refused) return;
  const sent = JSON.parse(kept) as SentForm;
  if (sent.page !== location.pathname + location.search) return;
  const form = [...document.querySelectorAll('form')].find((candidate) => candidate.action === sent.action);
  if (!form) return;
  // Checkboxes and radios come back exactly as they were sent: those sent checked, the others
  // not (whatever the page checked first); several boxes of one name (a webhook's events) each.
  const sentValues = new Map<string, string[]>();
  for (const [name, value] of sent.fields) sentValues.set(name, [...(sentValues.get(name) ?? []), value]);
  for (const control of form.querySelectorAll<HTMLInputElement>('input[type="checkbox"], input[type="radio"]')) {
    if (!control.name || SECRET_FIELD.test(control.name)) continue;
    control.checked = (sentValues.get(control.name) ?? []).includes(control.value);
  }
  for (const [name, value] of sent.fields) {
    const field = form.elements.namedItem(name);
    if (field instanceof RadioNodeList) continue;
    if (field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio')) continue;
    if (field && 'value' in field) (field as HTMLInputElement).value = value;
  }
  const notice = element('p', 'What you typed before signing in again is filled in: check it, then send it.');
  notice.className = 'notice info';
  notice.setAttribute('role', 'status');
  notice.dataset.restored = '';
  form.before(notice);
}

/**
 * A list marked `data-refresh-ms` is read again from its page that often while the tab is shown,
 * and replaced when it changed (a webhook endpoint's messages: new ones, new states).
 */
function setUpRefresh(): void {
  const list = document.querySelector<HTMLElement>('[data-refresh-ms]');
  const every = Number(list?.dataset.refreshMs);
  if (!list?.id || !(every > 0)) return;
  const refresh = async () => {
    if (document.hidden) return;
    try {
      const answer = await fetch(location.href, { headers: { Accept: 'text/html' }, credentials: 'same-origin' });
      if (!answer.ok) return;
      const fresh = new DOMParser().parseFromString(await answer.text(), 'text/html').getElementById(list.id);
      if (fresh && fresh.innerHTML !== list.innerHTML) list.innerHTML = fresh.innerHTML;
    } catch {
      // Offline for now: the next round tries again.
    }
  };
  setInterval(() => void refresh(), every);
}

/**
 * A command to copy (a request as curl): its button, hidden without JavaScript (the text can be
 * selected by hand), copies the text of the element it names and says so in `#copy-status`.
 */
function setUpCopyCommands(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy-command]')) {
    const target = document.getElementById(button.dataset.copyCommand ?? '');
    if (!target) continue;
    button.hidden = false;
    button.addEventListener('click', () => void copy(target, 'command'));
  }
}

function start(): void {
  setUpReveal();
  setUpCopyCommands();
  setUpLive();
  setUpRefresh();
  keepSentForms();
  restoreSentForm();
  setUpCounters();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
