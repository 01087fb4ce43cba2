import { describe, expect, it } from 'vitest';
import type { TidingsNotification } from '../types.js';
import {
  handleClick,
  handleClose,
  handlePush,
  notificationTag,
  type PushBrowserRecord,
  parseEnvelope,
  type ShownData,
  type WorkerEnvironment,
} from './worker-core.js';

const record: PushBrowserRecord = {
  browserId: 'brw_1',
  browserSecret: 'bs_secret',
  baseUrl: 'https://api.example.com',
};

function notification(overrides: Partial<TidingsNotification> = {}): TidingsNotification {
  return {
    attempt_id: 'att_1',
    notification_id: 'ntf_1',
    title: 'Hello',
    body: 'A body',
    url: '/inbox/7',
    icon: null,
    tag: null,
    data: { n: 1 },
    created_at: '2026-11-25T08:00:00.000Z',
    expires_at: '2026-11-26T08:00:00.000Z',
    ...overrides,
  };
}

const envelope = (overrides: Partial<TidingsNotification> = {}, browserId = 'brw_1') =>
  JSON.stringify({ tidings: 1, browser_id: browserId, notification: notification(overrides) });

/** A service worker's world in memory: what it showed, posted, focused and opened. */
function world(
  options: {
    records?: PushBrowserRecord[];
    windows?: string[];
    answers?: (number | 'network')[];
    /** Attempts an open tab handed to its page; `'broken'` makes the lookup fail. */
    handledByTab?: string[] | 'broken';
  } = {},
) {
  const shown: { title: string; options: { body?: string; icon?: string; tag: string; data: ShownData } }[] = [];
  const posted: {
    url: string;
    body: { browser_id: string; browser_secret: string; events: { type: string; attempt_id: string; at: string }[] };
  }[] = [];
  const focused: string[] = [];
  const opened: string[] = [];
  const answers = [...(options.answers ?? [])];
  const environment: WorkerEnvironment = {
    lookup: async (id) => (options.records ?? [record]).find((r) => r.browserId === id) ?? null,
    handledByTab: async (attemptId) => {
      if (options.handledByTab === 'broken') throw new DOMException('blocked', 'UnknownError');
      return (options.handledByTab ?? []).includes(attemptId);
    },
    showing: async (tag) => shown.filter((s) => s.options.tag === tag).map((s) => s.options.data),
    show: async (title, shownOptions) => {
      shown.push({ title, options: shownOptions });
    },
    windows: async () => (options.windows ?? []).map((url) => ({ url, focus: async () => focused.push(url) })),
    openWindow: async (url) => opened.push(url),
    fetch: async (url, init) => {
      posted.push({ url, body: JSON.parse(init.body) });
      const answer = answers.shift() ?? 202;
      if (answer === 'network') throw new TypeError('Failed to fetch');
      return { ok: answer < 300, status: answer };
    },
    scope: 'https://app.example.com/',
    now: () => Date.parse('2026-11-25T08:00:01.000Z'),
    sleep: async () => {},
  };
  return { environment, shown, posted, focused, opened };
}

describe('parseEnvelope', () => {
  it("reads Tidings' envelope and nothing else", () => {
    expect(parseEnvelope(envelope())?.notification.attempt_id).toBe('att_1');
    for (const text of [
      null,
      '',
      'not json',
      'null',
      '{"tidings":2}',
      JSON.stringify({ tidings: 1, browser_id: 'b', notification: { title: 'x' } }),
    ]) {
      expect(parseEnvelope(text)).toBeNull();
    }
  });
});

describe('a push message', () => {
  it('shows the notification under its tag and reports delivered and displayed with the stored secret', async () => {
    const { environment, shown, posted } = world();
    await handlePush(environment, envelope());
    expect(shown).toEqual([
      {
        title: 'Hello',
        options: {
          body: 'A body',
          tag: 'tidings:ntf_1',
          data: { tidings: 1, browser_id: 'brw_1', attempt_id: 'att_1', url: '/inbox/7', data: { n: 1 } },
        },
      },
    ]);
    expect(posted).toEqual([
      {
        url: 'https://api.example.com/v1/events',
        body: {
          browser_id: 'brw_1',
          browser_secret: 'bs_secret',
          events: [
            { type: 'delivered', attempt_id: 'att_1', at: '2026-11-25T08:00:01.000Z' },
            { type: 'displayed', attempt_id: 'att_1', at: '2026-11-25T08:00:01.000Z' },
          ],
        },
      },
    ]);
  });

  it('shows an attempt once: a second message of it only reports delivered', async () => {
    const { environment, shown, posted } = world();
    await handlePush(environment, envelope());
    await handlePush(environment, envelope());
    expect(shown).toHaveLength(1);
    expect(posted.map((p) => p.body.events.map((e) => e.type))).toEqual([['delivered', 'displayed'], ['delivered']]);
  });

  it('drops an attempt an open tab already handed to its page, reporting delivered only', async () => {
    const { environment, shown, posted } = world({ handledByTab: ['att_1'] });
    await handlePush(environment, envelope());
    expect(shown).toEqual([]);
    expect(posted.map((p) => p.body.events.map((e) => [e.type, e.attempt_id]))).toEqual([[['delivered', 'att_1']]]);
    await handlePush(environment, envelope({ attempt_id: 'att_2' }));
    expect(shown.map((s) => s.options.data.attempt_id)).toEqual(['att_2']);
  });

  it('still shows the notification when the record of handled attempts cannot be read', async () => {
    const { environment, shown } = world({ handledByTab: 'broken' });
    await handlePush(environment, envelope());
    expect(shown).toHaveLength(1);
  });

  it("replaces an older notification of the customer's tag with a newer attempt", async () => {
    const { environment, shown } = world();
    await handlePush(environment, envelope({ tag: 'chat-7' }));
    await handlePush(
      environment,
      envelope({ tag: 'chat-7', attempt_id: 'att_2', notification_id: 'ntf_2', title: 'Newer' }),
    );
    expect(shown.map((s) => [s.options.tag, s.title])).toEqual([
      ['tidings:tag:chat-7', 'Hello'],
      ['tidings:tag:chat-7', 'Newer'],
    ]);
    expect(notificationTag({ tag: 'chat-7', notification_id: 'ntf_9' })).toBe('tidings:tag:chat-7');
  });

  it('shows but reports nothing for a browser this origin does not hold (push disabled since)', async () => {
    const { environment, shown, posted } = world({ records: [] });
    await handlePush(environment, envelope());
    expect(shown).toHaveLength(1);
    expect(posted).toEqual([]);
  });

  it('tries a receipt once more after a network failure or a 5xx, not after a 4xx', async () => {
    const failing = world({ answers: ['network', 202] });
    await handlePush(failing.environment, envelope());
    expect(failing.posted).toHaveLength(2);
    const refused = world({ answers: [401] });
    await handlePush(refused.environment, envelope());
    expect(refused.posted).toHaveLength(1);
    const busy = world({ answers: [503, 503] });
    await handlePush(busy.environment, envelope());
    expect(busy.posted).toHaveLength(2);
  });

  it("leaves another sender's message alone", async () => {
    const { environment, shown, posted } = world();
    await handlePush(environment, '{"title":"not ours"}');
    expect([shown, posted]).toEqual([[], []]);
  });
});

describe('a click and a close', () => {
  const data: ShownData = { tidings: 1, browser_id: 'brw_1', attempt_id: 'att_1', url: '/inbox/7', data: null };

  it('focuses an open window of the URL origin and reports clicked', async () => {
    const { environment, focused, opened, posted } = world({
      windows: ['https://other.example.org/', 'https://app.example.com/settings'],
    });
    await handleClick(environment, data);
    expect(focused).toEqual(['https://app.example.com/settings']);
    expect(opened).toEqual([]);
    expect(posted.map((p) => p.body.events[0]?.type)).toEqual(['clicked']);
  });

  it('opens the URL resolved against the scope when no window of its origin is open', async () => {
    const { environment, opened } = world({ windows: ['https://other.example.org/'] });
    await handleClick(environment, data);
    expect(opened).toEqual(['https://app.example.com/inbox/7']);
  });

  it('never opens a URL that is not http(s)', async () => {
    const { environment, opened, posted } = world();
    await handleClick(environment, { ...data, url: 'javascript:alert(1)' });
    expect(opened).toEqual([]);
    expect(posted).toHaveLength(1);
  });

  it('reports dismissed on a close, and ignores notifications that are not Tidings', async () => {
    const { environment, posted } = world();
    await handleClose(environment, data);
    await handleClose(environment, { some: 'other' });
    await handleClick(environment, null);
    expect(posted.map((p) => p.body.events[0]?.type)).toEqual(['dismissed']);
  });
});
