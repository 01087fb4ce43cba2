import type { BrowserCredentials } from './receipts.js';

/** What survives a reload of the page, per Tidings server. */
export interface StoredState {
  browser: BrowserCredentials | null;
  lastEventId: string;
  /** The newest attempt ids handed to the app, so that a reload does not hand them again. */
  seen: string[];
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** The storage key of one Tidings server. */
export const storageKey = (baseUrl: string) => `tidings:${baseUrl}`;

/** Reads the stored state; anything missing, malformed or unreadable reads as nothing. */
export function loadState(storage: Storage | null, key: string): StoredState | null {
  try {
    const value = JSON.parse(storage?.getItem(key) ?? 'null') as Partial<StoredState> | null;
    const browser = value?.browser;
    if (!isString(browser?.browserId) || !isString(browser.browserSecret)) return null;
    return {
      browser: { browserId: browser.browserId, browserSecret: browser.browserSecret },
      lastEventId: isString(value!.lastEventId) ? value!.lastEventId : '',
      seen: Array.isArray(value!.seen) ? value!.seen.filter(isString) : [],
    };
  } catch {
    return null;
  }
}

/** Writes the state, or removes it when there is no browser; a full or blocked storage is ignored. */
export function saveState(storage: Storage | null, key: string, state: StoredState): void {
  try {
    if (state.browser) storage?.setItem(key, JSON.stringify(state));
    else storage?.removeItem(key);
  } catch {
    // Quota or privacy mode: the only loss is that a reload starts a new browser.
  }
}
