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

async function copy(element: Element): Promise<void> {
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
  setStatus(copied ? 'Copied to the clipboard.' : 'The key is selected: press Ctrl+C (⌘C on a Mac) to copy it.');
}

function setUpReveal(): void {
  const reveal = document.querySelector<HTMLElement>('[data-replace-url]');
  if (!reveal) return;
  // A reload of this entry loads the keys list, not the POST that revealed the key.
  history.replaceState(null, '', reveal.dataset.replaceUrl);
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
    const target = document.getElementById(button.dataset.copy ?? '');
    if (!target) continue;
    button.hidden = false;
    button.addEventListener('click', () => void copy(target));
  }
  setStatus('Copy the key with the button, or select it.');
  // Leaving the page wipes the key, so back/forward from the page cache cannot show it again.
  window.addEventListener('pagehide', () => {
    for (const secret of document.querySelectorAll('[data-secret]')) secret.textContent = '(hidden: shown once only)';
  });
}

function start(): void {
  setUpReveal();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
