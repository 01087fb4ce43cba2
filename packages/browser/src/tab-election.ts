import type { TidingsEnvironment } from './options.js';

/**
 * A tab's part in the election of the tab that holds the connection for all the tabs of one
 * browser (a `const enum`: the build writes numbers in place of the names).
 */
export enum TabRole {
  /** Queued on the lock, fed by the leader. */
  Follower,
  /** Holds the lock and the connection. */
  Leader,
  /** Out for good. */
  Closed,
}

/** The part of the Web Locks API the election uses. */
export interface ElectionLocks {
  request(
    name: string,
    options: { steal?: boolean; signal?: AbortSignal },
    callback: () => Promise<void>,
  ): Promise<unknown>;
}

/** The part of a `BroadcastChannel` the election uses. */
export interface ElectionChannel {
  postMessage(message: unknown): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  close(): void;
}

/** A message of the leader to the other tabs: its state, and what it relays. */
export type LeaderMessage = Record<string, unknown>;

/** Options of {@link createTabElection}. */
export interface TabElectionOptions {
  /** The lock's name; tabs that share it share one connection. */
  name: string;
  locks: ElectionLocks;
  channel: ElectionChannel;
  environment: Pick<TidingsEnvironment, 'setTimeout' | 'clearTimeout' | 'now'>;
  /** The leader's state, sent with every message of the leader (the heartbeat included). */
  state: () => LeaderMessage;
  /** Called on every change of role. */
  onRole: (role: TabRole) => void;
  /** A message of the leader, in a follower. */
  onMessage: (message: LeaderMessage) => void;
}

/** Interval of the leader's heartbeat and of the followers' check of it, in milliseconds. */
const heartbeatMs = 250;
/**
 * Silence of the leader after which a follower takes its lock (`steal`), in milliseconds. One
 * heartbeat earlier the follower asks the leader to answer at once, so that a tab whose timers
 * the browser throttles in the background is not taken for a frozen one.
 */
const silenceMs = 1000;

/** A tab's membership of the election. */
export interface TabElection {
  role(): TabRole;
  /** Sends a message to the other tabs, with the leader's state; only the leader sends. */
  post(message?: LeaderMessage): void;
  /** Leaves the election for good: the lock goes to the next tab in the queue. */
  close(): void;
}

/**
 * Joins the election. The leader is the tab that holds the Web Lock `name`: the others queue on
 * it, so that the next one is granted it the instant the leader's tab closes (which releases
 * it). A frozen tab keeps its lock, so the leader also sends a heartbeat over the channel, and a
 * follower that hears nothing for `silenceMs` takes the lock with `steal`; the frozen tab's
 * request then rejects, and it follows from then on.
 */
export function createTabElection(options: TabElectionOptions): TabElection {
  const { name, locks, channel, environment } = options;
  let role = TabRole.Follower;
  let heardAt = environment.now();
  /** The newest lock request; a queued one is withdrawn before stealing. */
  let current: AbortController | null = null;
  let release: (() => void) | null = null;
  let timer: unknown = null;

  const post = (message?: LeaderMessage) => {
    if (role === TabRole.Leader) channel.postMessage({ ...options.state(), ...message, leader: true });
  };
  const probe = () => channel.postMessage({ probe: true });
  const heard = () => {
    heardAt = environment.now();
  };
  /** Every change of role goes through here. */
  const become = (next: TabRole) => {
    if (role === next) return;
    role = next;
    options.onRole(role);
  };
  /** Queues on the lock, or takes it from a silent leader (`steal`); a queued request is withdrawn first. */
  const request = (steal: boolean) => {
    current?.abort();
    const controller = new AbortController();
    current = controller;
    locks
      .request(
        name,
        steal ? { steal } : { signal: controller.signal },
        () =>
          new Promise<void>((resolve) => {
            release = resolve;
            if (role === TabRole.Closed)
              resolve(); // granted after close: hand the lock on at once
            else {
              become(TabRole.Leader);
              post();
            }
          }),
      )
      // Rejected: stolen from this tab, or withdrawn by it (then it is no longer `current`).
      .catch(() => {
        if (current !== controller || role === TabRole.Closed) return;
        // A queued request fails only when the lock cannot be had at all: lead without it, as a
        // tab without Web Locks does. A leader's fails when another tab took the lock: follow.
        if (role === TabRole.Follower) return become(TabRole.Leader);
        release = null;
        heard();
        request(false);
        become(TabRole.Follower);
      });
  };

  const tick = () => {
    const silence = environment.now() - heardAt;
    if (role === TabRole.Leader) post();
    else if (silence > silenceMs) {
      heard();
      request(true);
    } else if (silence > silenceMs - heartbeatMs) probe();
    timer = environment.setTimeout(tick, heartbeatMs);
  };

  channel.onmessage = ({ data }) => {
    const message = data as LeaderMessage | null;
    if (message?.probe) post();
    else if (message?.leader && role === TabRole.Follower) {
      heard();
      options.onMessage(message);
    }
  };
  request(false);
  probe(); // a leader answers at once: no wait for its heartbeat
  timer = environment.setTimeout(tick, heartbeatMs);

  return {
    role: () => role,
    post,
    close: () => {
      if (role === TabRole.Closed) return;
      current?.abort();
      release?.();
      environment.clearTimeout(timer);
      channel.close();
      become(TabRole.Closed);
    },
  };
}
