import { createElement, type ReactNode, StrictMode } from 'react';
import { act, create, type ReactTestRenderer } from 'react-test-renderer';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type InboxResult, TidingsProvider, useInbox, useTidings, useUnreadCount } from '../src/index.js';
import { counts, fakeInbox, item, page, READ_AT, settle, update } from './fake-inbox.js';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean | undefined;
}

/** What React printed as errors, but the test renderer's notice that it is deprecated. */
let reactErrors: unknown[][] = [];

beforeEach(() => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  reactErrors = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    if (!String(args[0]).startsWith('react-test-renderer is deprecated')) reactErrors.push(args);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  expect(reactErrors).toEqual([]);
});

/** Renders `element` under a provider of `fake`'s inbox, in strict mode (effects run twice). */
async function render(fake: ReturnType<typeof fakeInbox>, element: ReactNode): Promise<ReactTestRenderer> {
  let renderer!: ReactTestRenderer;
  await act(async () => {
    const provided = createElement(TidingsProvider, { connection: { inbox: fake.inbox } }, element);
    renderer = create(createElement(StrictMode, null, provided));
  });
  return renderer;
}

/** Lets the answers given settle inside `act`, so React renders what they changed. */
const settled = () => act(settle);

function Badge() {
  const { unread, loading } = useUnreadCount();
  return loading ? 'loading' : `${unread} unread`;
}

describe('useUnreadCount', () => {
  it('shows the counts read, follows the events, and stops listening when unmounted', async () => {
    const fake = fakeInbox();
    const renderer = await render(fake, createElement(Badge));
    expect(renderer.toJSON()).toBe('loading');
    expect(fake.listeners()).toBe(1);

    for (const call of fake.counts) call.resolve(counts(2));
    await settled();
    expect(renderer.toJSON()).toBe('2 unread');

    await act(async () => fake.emit({ type: 'counts', counts: counts(3) }));
    expect(renderer.toJSON()).toBe('3 unread');

    await act(async () => renderer.unmount());
    expect(fake.listeners()).toBe(0);
  });
});

/** The items as text; hands what `useInbox` returned to `onRender` at every render. */
function List({ onRender }: { onRender: (inbox: InboxResult) => void }) {
  const inbox = useInbox({ pageSize: 2 });
  onRender(inbox);
  return inbox.items.map(({ id, read_at }) => `${id}${read_at ? ' read' : ''}`).join(', ');
}

function Lonely() {
  useTidings();
  return null;
}

describe('useInbox', () => {
  it('lists the first page, follows the events, marks, and stops listening when unmounted', async () => {
    const fake = fakeInbox();
    let inbox!: InboxResult;
    const renderer = await render(fake, createElement(List, { onRender: (latest) => (inbox = latest) }));
    expect(fake.listeners()).toBe(1);
    expect(fake.lists.at(-1)!.args.limit).toBe(2);

    for (const call of fake.lists) call.resolve(page([item(2), item(1)], true, counts(2)));
    await settled();
    expect(renderer.toJSON()).toBe('ntf_2, ntf_1');
    expect(inbox.hasMore).toBe(true);

    await act(async () => fake.emit({ type: 'item', item: item(3), version: 2 }));
    expect(renderer.toJSON()).toBe('ntf_3, ntf_2, ntf_1');

    await act(async () => void inbox.markRead('ntf_2'));
    fake.marks[0]!.resolve(update('read', [item(2, { read_at: READ_AT })], counts(2, 3, 2, 3)));
    await settled();
    expect(renderer.toJSON()).toBe('ntf_3, ntf_2 read, ntf_1');
    expect(inbox.counts).toEqual(counts(2, 3, 2, 3));

    await act(async () => renderer.unmount());
    expect(fake.listeners()).toBe(0);
  });

  it('drops an answer that comes after the component unmounted', async () => {
    const fake = fakeInbox();
    const renders: string[] = [];
    const onRender = ({ items, loading }: InboxResult) => renders.push(loading ? 'loading' : `${items.length} items`);
    const renderer = await render(fake, createElement(List, { onRender }));
    await act(async () => renderer.unmount());
    for (const call of fake.lists) call.resolve(page([item(1)]));
    await settled();
    expect(new Set(renders)).toEqual(new Set(['loading']));
  });
});

describe('useTidings', () => {
  it('says what is missing outside a provider', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(act(async () => void create(createElement(Lonely)))).rejects.toThrow(/TidingsProvider/);
  });
});
