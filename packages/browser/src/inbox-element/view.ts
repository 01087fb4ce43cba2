import type { TidingsInboxItem } from '../inbox-types.js';

const bellPath =
  'M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22zm7-6v-5a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1z';

/** The shadow tree, without the items: the bell, the live region and the panel. */
export const shell = () => `
<button part="bell" type="button" aria-expanded="false" aria-controls="panel" aria-haspopup="dialog">
  <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="${bellPath}"/></svg>
  <span part="badge" aria-hidden="true" hidden></span>
</button>
<span part="live" class="sr" role="status" aria-live="polite"></span>
<section part="panel" id="panel" role="dialog" aria-labelledby="heading" tabindex="-1" hidden>
  <div part="header">
    <h2 part="heading" id="heading"></h2>
    <button part="mark-all" type="button">Mark all read</button>
  </div>
  <p part="offline" hidden></p>
  <div part="scroller">
    <ul part="list" aria-labelledby="heading"></ul>
    <p part="empty" hidden>No notifications</p>
    <p part="loading" hidden>Loading…</p>
    <div class="sentinel"></div>
  </div>
</section>`;

/** An item's row: the button that opens it, and its two actions. */
export const itemShell = () => `
<button part="open" type="button">
  <span part="marker"></span>
  <span part="title"></span>
  <span part="body"></span>
  <time part="time"></time>
</button>
<div part="actions">
  <button part="action toggle-read" type="button"></button>
  <button part="action archive" type="button">Archive</button>
</div>`;

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
];

/** "5 minutes ago"; a date beyond a week. */
export function timeAgo(iso: string, now: number, locale?: string): string {
  const time = Date.parse(iso);
  let amount = Math.round((time - now) / 1000);
  for (const [unit, size] of units) {
    if (Math.abs(amount) < size) return new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(amount, unit);
    amount = Math.round(amount / size);
  }
  return new Date(time).toLocaleDateString(locale);
}

/** Writes the item's state into its row. */
export function fillItem(row: HTMLElement, item: TidingsInboxItem, now: number, locale?: string) {
  const unread = !item.read_at;
  const part = (name: string) => row.querySelector(`[part~=${name}]`)!;
  row.setAttribute('part', unread ? 'item unread' : 'item');
  const titleId = `title-${item.id}`;
  const title = part('title');
  title.id = titleId;
  title.textContent = item.title;
  part('body').textContent = item.body ?? '';
  const time = part('time');
  time.setAttribute('datetime', item.created_at);
  time.textContent = timeAgo(item.created_at, now, locale);
  part('marker').innerHTML = unread ? '<span class="sr">Unread: </span>' : '';
  for (const action of row.querySelectorAll('[part~=action]')) action.setAttribute('aria-describedby', titleId);
  part('toggle-read').textContent = unread ? 'Mark read' : 'Mark unread';
}
