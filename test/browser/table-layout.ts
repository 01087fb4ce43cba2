import type { Page } from 'playwright-core';

/**
 * Checks of the dashboard's tables as laid out in the page, run in the browser so that they see
 * what a person sees: the boxes Chromium made, not the markup.
 */

/**
 * The words of table cells that Chromium broke over more than one line. A word is a run of
 * characters without white space; its client rects (one per line box it touches) must share one
 * line. Text a screen reader alone gets (`.visually-hidden`) is left out: it is not laid out to be
 * read.
 */
export function brokenWords(page: Page, name: string): Promise<string[]> {
  return page.evaluate((name) => {
    const found: string[] = [];
    for (const cell of document.querySelectorAll('main table td, main table th')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement?.closest('.visually-hidden')) continue;
        for (const match of (node.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set(
            [...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)),
          );
          if (lines.size > 1) found.push(`${name}: “${match[0].slice(0, 24)}…” is broken over ${lines.size} lines`);
        }
      }
    }
    return found;
  }, name);
}

/**
 * Every non-empty cell of every table row that is not on screen, or not inside its table's frame,
 * or not labelled with its column's header (the card layout's `::before`); and how many cells were
 * looked at, so that a page without rows cannot pass unseen.
 */
export function hiddenCells(page: Page, name: string): Promise<{ findings: string[]; cells: number }> {
  return page.evaluate((name) => {
    const findings: string[] = [];
    let cells = 0;
    const screen = document.documentElement.clientWidth;
    for (const table of document.querySelectorAll('main table')) {
      // A header read by screen readers alone (a row's actions) labels nothing on screen.
      const headers = [...table.querySelectorAll('thead th')].map((th) =>
        th.querySelector('.visually-hidden') ? '' : (th.textContent?.trim() ?? ''),
      );
      const frame = table.closest('.table-wrap')?.getBoundingClientRect();
      for (const row of table.querySelectorAll('tbody tr')) {
        for (const cell of row.querySelectorAll<HTMLTableCellElement>(':scope > td')) {
          const text = [...cell.childNodes]
            .filter((node) => !(node instanceof Element && node.classList.contains('visually-hidden')))
            .map((node) => node.textContent)
            .join('')
            .trim();
          if (!text) continue;
          cells++;
          const header = headers[cell.cellIndex] ?? '';
          const where = `${name}: ${header || `column ${cell.cellIndex + 1}`} “${text.slice(0, 24)}”`;
          const box = cell.getBoundingClientRect();
          const onScreen = box.width > 0 && box.height > 0 && box.left >= -0.5 && box.right <= screen + 0.5;
          const inFrame = !frame || (box.left >= frame.left - 0.5 && box.right <= frame.right + 0.5);
          if (!onScreen || !inFrame)
            findings.push(`${where} is off screen (${Math.round(box.left)}–${Math.round(box.right)} px)`);
          const label = getComputedStyle(cell, '::before').content;
          if (header && !label.includes(header)) findings.push(`${where} is not labelled “${header}” (${label})`);
        }
      }
    }
    return { findings, cells };
  }, name);
}

/** The innermost elements that reach past the screen's right edge, to say what widens a page. */
export function pastTheScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const screen = document.documentElement.clientWidth;
    const past = [...document.querySelectorAll('body *')].filter(
      (element) => element.getBoundingClientRect().right > screen + 0.5 && !element.closest('.visually-hidden'),
    );
    return past
      .filter((element) => !past.some((other) => other !== element && element.contains(other)))
      .slice(0, 5)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}.${element.className} to ${Math.round(element.getBoundingClientRect().right)} px`,
      );
  });
}

/** The tables whose columns do not fit their frame, so that the frame scrolls sideways. */
export function scrollingTables(page: Page, name: string): Promise<string[]> {
  return page.evaluate(
    (name) =>
      [...document.querySelectorAll<HTMLElement>('main .table-wrap')]
        .filter((frame) => frame.scrollWidth > frame.clientWidth)
        .map((frame) => `${name}: the table “${frame.getAttribute('aria-label')}” scrolls sideways`),
    name,
  );
}
