import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeServer, notification } from '../test/fake-server.js';
import { fakeBroadcastChannel, fakeLocks } from '../test/fake-tabs.js';
import { memoryStorage } from '../test/memory-storage.js';
import { connect } from './connect.js';
import type { TidingsHost } from './options.js';
import type { TidingsNotification, TidingsStatus, TidingsStatusDetail } from './types.js';

/** Tabs of one browser, in memory: one fake server, one lock manager, one channel namespace. */
function createBrowser() {
  const server = createFakeServer();
  const host: TidingsHost = {
    addEventListener: () => {},
    removeEventListener: () => {},
    navigator: { locks: fakeLocks() },
    BroadcastChannel: fakeBroadcastChannel(),
  };
  const openTab = (recipient = 'user_1') => {
    const notifications: TidingsNotification[] = [];
    const statuses: [TidingsStatus, TidingsStatusDetail | undefined][] = [];
    const getToken = vi.fn(async () => 'ct_tab');
    const connection = connect({
      baseUrl: 'https://tidings.test',
      recipient,
      getToken,
      onNotification: (item) => notifications.push(item),
      onStatus: (status, detail) => statuses.push([status, detail]),
      storage: memoryStorage(),
      fetch: server.fetch,
      environment: { host, random: () => 0.5 },
    });
    return { connection, notifications, statuses, getToken };
  };
  return { server, openTab };
}

const tick = (milliseconds = 0) => vi.advanceTimersByTimeAsync(milliseconds);

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('connect with a recipient: tabs share one connection', () => {
  it('one stream and one token for three tabs; every tab gets each notification once; one delivered receipt', async () => {
    const { server, openTab } = createBrowser();
    const tabs = [openTab(), openTab(), openTab()];
    await tick(10);
    expect(server.connects()).toHaveLength(1);
    expect(tabs.map((tab) => tab.getToken.mock.calls.length)).toEqual([1, 0, 0]);

    server.stream.ready('brw_1', 'bs_1');
    server.stream.notification('brw_1.1', notification('att_1'));
    server.stream.notification('brw_1.2', notification('att_2'));
    server.stream.notification('brw_1.2', notification('att_2')); // a duplicate
    await tick(100);
    for (const tab of tabs) expect(tab.notifications.map((item) => item.attempt_id)).toEqual(['att_1', 'att_2']);
    expect(tabs.map((tab) => tab.connection.browserId())).toEqual(['brw_1', 'brw_1', 'brw_1']);
    expect(tabs[0]!.statuses.at(-1)).toEqual(['open', expect.objectContaining({ leader: true, browserId: 'brw_1' })]);
    expect(tabs[1]!.statuses.at(-1)).toEqual(['open', expect.objectContaining({ leader: false, browserId: 'brw_1' })]);
    // `delivered` from the leader only: once per attempt, and again for the duplicate.
    expect(server.receipts().map((receipt) => [receipt.type, receipt.attempt_id])).toEqual([
      ['delivered', 'att_1'],
      ['delivered', 'att_2'],
      ['delivered', 'att_2'],
    ]);

    // A follower's own receipt goes from that tab, with the shared browser's secret.
    tabs[2]!.connection.clicked('att_1');
    await tick(100);
    expect(server.receipts().at(-1)).toMatchObject({ type: 'clicked', attempt_id: 'att_1', browser_secret: 'bs_1' });
    expect(server.connects()).toHaveLength(1);
    for (const tab of tabs) tab.connection.close();
  });

  it('when the leader closes, the next tab gets a token and resumes the same browser', async () => {
    const { server, openTab } = createBrowser();
    const [first, second] = [openTab(), openTab()];
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    server.stream.notification('brw_1.1', notification('att_1'));
    await tick(100);

    first.connection.close();
    await tick(10);
    expect(second.getToken).toHaveBeenCalledTimes(1);
    expect(server.connects()).toHaveLength(2);
    expect(server.connects()[1]?.url.search).toBe('?last_event_id=brw_1.1');
    server.stream.ready('brw_1', null, { resumed: true });
    server.stream.notification('brw_1.1', notification('att_1')); // not final: sent again
    server.stream.notification('brw_1.2', notification('att_2'));
    await tick(100);
    expect(second.notifications.map((item) => item.attempt_id)).toEqual(['att_1', 'att_2']);
    expect(second.statuses.at(-1)).toEqual([
      'open',
      expect.objectContaining({ leader: true, resumed: true, browserId: 'brw_1' }),
    ]);
    second.connection.close();
  });

  it('disconnect() in a follower ends the browser for every tab', async () => {
    const { server, openTab } = createBrowser();
    const [first, second] = [openTab(), openTab()];
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    await tick(100);
    second.connection.disconnect();
    expect(server.requests.at(-1)?.url.pathname).toBe('/v1/browsers/brw_1/disconnect');
    // The server ends the leader's stream, and answers its resume with 204.
    server.answers.connect.push(() => new Response(null, { status: 204 }));
    server.stream.end();
    await tick(5000);
    for (const tab of [first, second]) expect(tab.statuses.at(-1)?.[0]).toBe('closed');
    expect(first.statuses.at(-1)?.[1]).toMatchObject({ reason: 'disconnected' });
  });

  it('tabs of another recipient do not share', async () => {
    const { server, openTab } = createBrowser();
    const tabs = [openTab('user_1'), openTab('user_2')];
    await tick(10);
    expect(server.connects()).toHaveLength(2);
    for (const tab of tabs) tab.connection.close();
  });
});
