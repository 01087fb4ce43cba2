import {
  emptyInboxList,
  type InboxList,
  type InboxListRead,
  isBehind,
  receiveFirstPage,
  receiveItem,
  receiveNextPage,
  receiveUpdate,
  receiveVersion,
} from '../inbox-list.js';
import type {
  TidingsInbox,
  TidingsInboxAction,
  TidingsInboxCounts,
  TidingsInboxEvent,
  TidingsInboxFilter,
  TidingsInboxItem,
} from '../inbox-types.js';
import { safeUrl } from '../system-notification.js';
import type { TidingsStatus } from '../types.js';
import { styles } from './styles.js';
import { fillItem, itemShell, shell } from './view.js';

/** What the element needs of a connection (`connect()`'s handle): its inbox. */
export interface TidingsInboxSource {
  inbox?: TidingsInbox;
}

/** What `tidings-inbox-select` carries: the item the user opened. */
export interface TidingsInboxSelectDetail {
  item: TidingsInboxItem;
}

const statusText: Record<TidingsStatus, string> = {
  connecting: 'Connecting…',
  open: '',
  reconnecting: 'Offline: reconnecting…',
  closed: 'Offline',
};

/** The element lists the items that are not archived, read or not. */
const FILTER: TidingsInboxFilter = { unread: false, archived: false };

/** How long the list waits for a change it was not told before it reads its first page again. */
const BEHIND_MS = 3000;

const ignore = () => {};

// Defined in a page only: on a server (or in Node.js) the module still loads, and registers nothing.
const Base = (globalThis.HTMLElement ?? class {}) as typeof HTMLElement;

/**
 * `<tidings-inbox>`: a bell with the unread count that opens the recipient's inbox, kept right by
 * the connection's inbox events. Give it a connection: `element.connection = connect({ … })`.
 */
export class TidingsInboxElement extends Base {
  static observedAttributes = ['label'];
  private _source: TidingsInboxSource | null = null;
  private _inbox: TidingsInbox | null = null;
  private _unsubscribe: () => void = ignore;
  /** The list, kept in the order of the inbox's versions (inbox-list.ts). */
  private _list: InboxList = emptyInboxList();
  private _behind: ReturnType<typeof setTimeout> | undefined;
  private _rows = new Map<string, HTMLElement>();
  private _unread: number | null = null;
  /** The version of the counts shown: older ones (answers that crossed a newer event) change nothing. */
  private _version = Number.NEGATIVE_INFINITY;
  private _status: TidingsStatus = 'connecting';
  private _loading = false;
  private _shadow: ShadowRoot | null = null;
  private _observer: IntersectionObserver | null = null;

  /** The connection whose inbox the element shows (`connect()`'s handle), or null. */
  get connection(): TidingsInboxSource | null {
    return this._source;
  }

  set connection(source: TidingsInboxSource | null) {
    if (source && !source.inbox) {
      throw new TypeError('<tidings-inbox>: this connection has no inbox; load tidings-inbox.global.js');
    }
    this._source = source;
    this._attach();
  }

  /** Whether the list is open. */
  get open(): boolean {
    return !!this._shadow && !this._part('panel').hidden;
  }

  connectedCallback() {
    this._build();
    // A connection set before the element was defined sits on the instance, hiding the setter.
    if (Object.hasOwn(this, 'connection')) {
      const source = this.connection;
      delete (this as { connection?: unknown }).connection;
      this.connection = source;
    } else this._attach();
  }

  disconnectedCallback() {
    this._detach();
  }

  attributeChangedCallback() {
    if (this._shadow) this._renderBell();
  }

  /** Opens the list, as a click on the bell does. */
  show() {
    if (this.open || !this._shadow) return;
    this._part('panel').hidden = false;
    this._part('bell').setAttribute('aria-expanded', 'true');
    this._place();
    this._part('panel').focus();
    document.addEventListener('pointerdown', this._onOutside, true);
    addEventListener('resize', this._place);
    void this._loadPage(true);
    this._emit('tidings-inbox-open');
  }

  /** Closes the list; `focusBell` returns the focus to the bell. */
  hide(focusBell = false) {
    if (!this.open) return;
    this._part('panel').hidden = true;
    this._part('bell').setAttribute('aria-expanded', 'false');
    document.removeEventListener('pointerdown', this._onOutside, true);
    removeEventListener('resize', this._place);
    this._observer?.disconnect();
    if (focusBell) this._part('bell').focus();
    this._emit('tidings-inbox-close');
  }

  private _part(name: string): HTMLElement {
    return this._shadow!.querySelector(`[part~=${name}]`)!;
  }

  private _emit(type: string, detail?: unknown) {
    return this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true, cancelable: true }));
  }

  private _build() {
    if (this._shadow) return;
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${styles}</style>${shell()}`;
    this._shadow = root;
    this._part('bell').addEventListener('click', () => (this.open ? this.hide(true) : this.show()));
    this._part('mark-all').addEventListener('click', () => this._mark('read', 'all'));
    this._part('list').addEventListener('click', this._onListClick);
    root.addEventListener('keydown', (event) => {
      if ((event as KeyboardEvent).key !== 'Escape' || !this.open) return;
      event.stopPropagation();
      this.hide(true);
    });
    this._observer = new IntersectionObserver(
      (entries) => entries.some((entry) => entry.isIntersecting) && this._loadPage(false),
      { root: this._part('scroller') },
    );
    this._renderBell();
    this._renderList();
  }

  private _attach() {
    this._detach();
    const inbox = this._source?.inbox;
    if (!inbox || !this.isConnected || !this._shadow) return;
    this._inbox = inbox;
    this._unsubscribe = inbox.subscribe((event) => this._on(event));
    this._status = inbox.status();
    this._renderList();
    inbox.counts().then((counts) => inbox === this._inbox && this._setCounts(counts), ignore);
  }

  private _detach() {
    this.hide();
    this._unsubscribe();
    this._unsubscribe = ignore;
    this._inbox = null;
    this._list = emptyInboxList();
    clearTimeout(this._behind);
    this._behind = undefined;
    this._unread = null;
    this._version = Number.NEGATIVE_INFINITY;
    if (this._shadow) this._renderBell();
  }

  private get _items(): TidingsInboxItem[] {
    return this._list.items;
  }

  /** Whether the list follows the events: once read, or while its first page is read. */
  private get _tracking(): boolean {
    return this._list.version >= 0 || this._loading;
  }

  private _on(event: TidingsInboxEvent) {
    if (event.type === 'status') return this._setStatus(event.status);
    if (event.type === 'counts') this._setCounts(event.counts);
    if (event.type === 'update') this._setCounts(event.update.counts);
    if (!this._tracking) return;
    if (event.type === 'update') this._step(receiveUpdate(this._list, event.update, FILTER));
    else if (event.type === 'counts')
      this._step({ list: receiveVersion(this._list, event.counts.version), read: null });
    else {
      this._step(receiveItem(this._list, event.item, event.version, FILTER));
      this._markSeen([event.item]);
    }
  }

  /** Takes the list a step left, reads what it asks for, and reads the first page again when left behind. */
  private _step(next: { list: InboxList; read: InboxListRead }) {
    this._list = next.list;
    if (next.read) void this._loadPage(next.read === 'first', true);
    if (!isBehind(this._list)) {
      clearTimeout(this._behind);
      this._behind = undefined;
    } else
      this._behind ??= setTimeout(() => {
        this._behind = undefined;
        if (isBehind(this._list)) void this._loadPage(true);
      }, BEHIND_MS);
    this._renderList();
  }

  private _setStatus(status: TidingsStatus) {
    this._status = status;
    // Back online: what changed meanwhile is read again.
    if (status === 'open' && this.open) void this._loadPage(true);
    this._renderList();
  }

  private _setCounts(counts: TidingsInboxCounts) {
    if (counts.version < this._version) return;
    this._version = counts.version;
    const before = this._unread;
    this._unread = counts.unread;
    this._renderBell();
    if (before !== null && before !== counts.unread) {
      this._part('live').textContent = `${counts.unread} unread notification${counts.unread === 1 ? '' : 's'}`;
    }
  }

  /** Reads the first page, or the next (`again`: the list asked for it, whatever is under way). */
  private async _loadPage(first: boolean, again = false) {
    const inbox = this._inbox;
    if (!inbox || (this._loading && !first && !again) || (!first && !this._list.hasMore)) return;
    this._loading = true;
    this._renderList();
    const last = this._items[this._items.length - 1];
    try {
      const limit = Math.min(Math.max(Number(this.getAttribute('page-size')) || 20, 1), 100);
      const page = await inbox.list({ limit, startingAfter: first ? undefined : last?.id });
      if (inbox !== this._inbox) return;
      this._setCounts(page.counts);
      this._step((first ? receiveFirstPage : receiveNextPage)(this._list, page, FILTER));
      this._markSeen(page.data);
    } catch {
      // Offline or refused: the status line says so, and the next opening tries again.
    } finally {
      this._loading = false;
      this._renderList();
      this._watchEnd();
    }
  }

  /** Watches the end of the list while there is more: observing again reports where it is now. */
  private _watchEnd() {
    const end = this._shadow!.querySelector('.sentinel')!;
    this._observer?.unobserve(end);
    if (this._list.hasMore && this.open) this._observer?.observe(end);
  }

  private _markSeen(items: TidingsInboxItem[]) {
    const ids = items.filter((item) => !item.seen_at).map((item) => item.id);
    if (this.open && ids.length) this._mark('seen', ids);
  }

  private _mark(action: TidingsInboxAction, ids: string[] | 'all') {
    const inbox = this._inbox;
    inbox?.mark(action, ids).then((update) => {
      if (inbox !== this._inbox) return;
      this._setCounts(update.counts);
      this._step(receiveUpdate(this._list, update, FILTER));
    }, ignore);
  }

  private _onListClick = (event: Event) => {
    const target = event.target as Element;
    const button = target.closest('button');
    const row = target.closest('li');
    const item = this._items.find((candidate) => candidate.id === row?.dataset.id);
    if (!button || !row || !item) return;
    const part = button.getAttribute('part')!;
    if (/archive/.test(part)) this._archive(item, row);
    else if (/toggle-read/.test(part)) this._mark(item.read_at ? 'unread' : 'read', [item.id]);
    else this._select(item);
  };

  /** Archives the item; the focus moves to the next one first, since its row goes. */
  private _archive(item: TidingsInboxItem, row: HTMLElement) {
    const next = (row.nextElementSibling ?? row.previousElementSibling)?.querySelector('button');
    (next ?? this._part('panel')).focus();
    this._mark('archive', [item.id]);
  }

  /** Marks the item read and follows its URL, unless a listener of `tidings-inbox-select` prevents it. */
  private _select(item: TidingsInboxItem) {
    const follow = this._emit('tidings-inbox-select', { item } satisfies TidingsInboxSelectDetail);
    if (!item.read_at) this._mark('read', [item.id]);
    const url = safeUrl(item.url, location.href);
    if (follow && url) location.assign(url);
  }

  private _onOutside = (event: Event) => {
    if (!event.composedPath().includes(this)) this.hide();
  };

  /** Puts the panel under the bell, inside the viewport whatever its width. */
  private _place = () => {
    const panel = this._part('panel');
    const bell = this._part('bell').getBoundingClientRect();
    const viewport = document.documentElement.clientWidth;
    const width = panel.offsetWidth;
    const top = bell.bottom + 8;
    panel.style.left = `${Math.max(8, Math.min(bell.right - width, viewport - width - 8))}px`;
    panel.style.top = `${top}px`;
    panel.style.maxHeight = `${Math.max(160, innerHeight - top - 8)}px`;
  };

  private _renderBell() {
    const label = this.getAttribute('label') || 'Notifications';
    const unread = this._unread ?? 0;
    const badge = this._part('badge');
    this._part('bell').setAttribute('aria-label', `${label}, ${unread} unread`);
    this._part('heading').textContent = label;
    badge.hidden = !unread;
    badge.textContent = unread > 99 ? '99+' : String(unread);
    (this._part('mark-all') as HTMLButtonElement).disabled = !unread;
  }

  private _renderList() {
    const list = this._part('list');
    const locale = this.closest('[lang]')?.getAttribute('lang') || undefined;
    const now = Date.now();
    const shown = new Set(this._items.map((item) => item.id));
    for (const [id, row] of this._rows) {
      if (shown.has(id)) continue;
      row.remove();
      this._rows.delete(id);
    }
    let next = list.firstElementChild;
    for (const item of this._items) {
      const row = this._row(item.id);
      fillItem(row, item, now, locale);
      // Rows in place stay: moving one would take the focus from it.
      if (row === next) next = row.nextElementSibling;
      else list.insertBefore(row, next);
    }
    this._part('empty').hidden = this._items.length > 0 || this._loading;
    this._part('loading').hidden = !this._loading;
    const offline = this._part('offline');
    offline.hidden = this._status === 'open';
    offline.textContent = statusText[this._status];
  }

  private _row(id: string): HTMLElement {
    let row = this._rows.get(id);
    if (!row) {
      row = document.createElement('li');
      row.dataset.id = id;
      row.innerHTML = itemShell();
      this._rows.set(id, row);
    }
    return row;
  }
}

/** Registers the element as `<tidings-inbox>`, unless a page did already; nothing where there is no DOM. */
export function defineTidingsInbox() {
  const registry = globalThis.customElements;
  if (registry && !registry.get('tidings-inbox')) registry.define('tidings-inbox', TidingsInboxElement);
}

declare global {
  interface HTMLElementTagNameMap {
    'tidings-inbox': TidingsInboxElement;
  }
}
