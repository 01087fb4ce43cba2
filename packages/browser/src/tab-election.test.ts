import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeLocks } from '../test/fake-tabs.js';
import {
  createTabElection,
  type ElectionChannel,
  type ElectionLocks,
  type LeaderMessage,
  type TabElection,
  TabRole,
} from './tab-election.js';

/** A tab's end of the fake BroadcastChannel. */
interface ChannelEnd {
  deliver(data: unknown): void;
}

/**
 * A tab: its own timers and channel end, which can be frozen (nothing runs, messages wait) or
 * throttled (timers wait, messages run, as in a background tab).
 */
function fakeTab(locks: ElectionLocks, channels: Set<ChannelEnd>) {
  const deferred: (() => void)[] = [];
  const tab = {
    frozen: false,
    throttled: false,
    roles: [] as TabRole[],
    messages: [] as LeaderMessage[],
    channel: null as unknown as ElectionChannel,
    election: null as unknown as TabElection,
    deliver(data: unknown) {
      const run = () => tab.channel.onmessage?.({ data: structuredClone(data) });
      if (tab.frozen) deferred.push(run);
      else setTimeout(run, 0);
    },
    thaw() {
      tab.frozen = false;
      tab.throttled = false;
      for (const run of deferred.splice(0)) run();
    },
  };
  tab.channel = {
    onmessage: null,
    postMessage: (data) => {
      for (const other of channels) if (other !== tab) other.deliver(data);
    },
    close: () => channels.delete(tab),
  };
  channels.add(tab);
  tab.election = createTabElection({
    name: 'tidings:test',
    locks,
    channel: tab.channel,
    environment: {
      now: () => Date.now(),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      setTimeout: (callback, milliseconds) =>
        setTimeout(() => (tab.frozen || tab.throttled ? deferred.push(callback) : callback()), milliseconds),
    },
    state: () => ({ from: tab.election?.role() }),
    onRole: (role) => tab.roles.push(role),
    onMessage: (message) => tab.messages.push(message),
  });
  return tab;
}

const tick = (milliseconds = 0) => vi.advanceTimersByTimeAsync(milliseconds);

let locks: ElectionLocks;
let channels: Set<ChannelEnd>;
const open = () => fakeTab(locks, channels);

beforeEach(() => {
  vi.useFakeTimers();
  locks = fakeLocks();
  channels = new Set();
});
afterEach(() => vi.useRealTimers());

describe('tab election', () => {
  it('the first tab leads, the next ones follow and hear its messages', async () => {
    const first = open();
    await tick();
    const second = open();
    const third = open();
    await tick(10);
    expect([first, second, third].map((tab) => tab.election.role())).toEqual([
      TabRole.Leader,
      TabRole.Follower,
      TabRole.Follower,
    ]);
    expect(first.roles).toEqual([TabRole.Leader]);
    expect(second.roles).toEqual([]);
    // The probe of a new tab is answered at once, before any heartbeat.
    expect(second.messages[0]).toEqual({ from: TabRole.Leader, leader: true });

    first.election.post({ notification: { attempt_id: 'att_1' } });
    await tick();
    for (const tab of [second, third])
      expect(tab.messages.at(-1)).toMatchObject({ notification: { attempt_id: 'att_1' } });
    // A follower sends nothing but probes: its post() is a no-op.
    second.election.post({ notification: { attempt_id: 'att_x' } });
    await tick();
    expect(third.messages.some((message) => JSON.stringify(message).includes('att_x'))).toBe(false);
  });

  it('the leader heartbeats, so followers keep following for as long as it lives', async () => {
    const leader = open();
    await tick();
    const follower = open();
    await tick(10_000);
    expect(follower.election.role()).toBe(TabRole.Follower);
    expect(follower.messages.length).toBeGreaterThanOrEqual(10_000 / 250 - 1);
    expect(leader.election.role()).toBe(TabRole.Leader);
  });

  it('when the leader closes, the next tab in the queue leads at once and the closed one never again', async () => {
    const first = open();
    await tick();
    const second = open();
    const third = open();
    await tick();
    first.election.close();
    await tick();
    expect(second.election.role()).toBe(TabRole.Leader);
    expect(third.election.role()).toBe(TabRole.Follower);
    expect(first.roles).toEqual([TabRole.Leader, TabRole.Closed]);
    second.election.close();
    await tick();
    expect(third.election.role()).toBe(TabRole.Leader);
    expect(first.election.role()).toBe(TabRole.Closed);
  });

  it('a tab closed while queued leaves the queue', async () => {
    const first = open();
    await tick();
    const second = open();
    const third = open();
    await tick();
    second.election.close();
    first.election.close();
    await tick();
    expect(second.roles).toEqual([TabRole.Closed]);
    expect(third.election.role()).toBe(TabRole.Leader);
  });

  it('a frozen leader keeps its lock: a follower steals it after 1 s of silence, and the thawed tab follows', async () => {
    const first = open();
    await tick();
    const second = open();
    await tick(100);
    first.frozen = true;
    await tick(900);
    expect(second.election.role()).toBe(TabRole.Follower);
    await tick(500);
    expect(second.election.role()).toBe(TabRole.Leader);

    first.thaw();
    await tick();
    expect(first.election.role()).toBe(TabRole.Follower);
    expect(first.roles).toEqual([TabRole.Leader, TabRole.Follower]);
    // The thawed tab queued again: it leads when the new leader closes.
    second.election.close();
    await tick();
    expect(first.election.role()).toBe(TabRole.Leader);
  });

  it('a throttled leader (timers held back, messages still handled) answers the probe and keeps its lock', async () => {
    const first = open();
    await tick();
    const second = open();
    await tick();
    first.throttled = true;
    await tick(5000);
    expect(second.election.role()).toBe(TabRole.Follower);
    expect(first.election.role()).toBe(TabRole.Leader);
  });

  it('where the lock is refused (a sandboxed frame), every tab leads on its own', async () => {
    locks = { request: () => Promise.reject(new DOMException('opaque origin', 'SecurityError')) };
    const tabs = [open(), open()];
    await tick(2000);
    expect(tabs.map((tab) => tab.roles)).toEqual([[TabRole.Leader], [TabRole.Leader]]);
  });

  it('several followers that find the leader frozen end with one leader', async () => {
    const first = open();
    await tick();
    const followers = [open(), open(), open()];
    await tick();
    first.frozen = true;
    await tick(3000);
    expect(followers.filter((tab) => tab.election.role() === TabRole.Leader)).toHaveLength(1);
    first.thaw();
    await tick(1000);
    const tabs = [first, ...followers];
    expect(tabs.filter((tab) => tab.election.role() === TabRole.Leader)).toHaveLength(1);
  });
});
