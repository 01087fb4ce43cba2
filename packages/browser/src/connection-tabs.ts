import { withInbox, withPush } from './build-flags.js';
import { Input } from './connection-machine.js';
import { type ConnectionState, save, setStatus, stop, to } from './connection-state.js';
import { handleNotification } from './notifications.js';
import type { BrowserCredentials } from './receipts.js';
import { createTabElection, TabRole } from './tab-election.js';
import type { TidingsStatus, TidingsStatusDetail } from './types.js';

/**
 * Shares one connection among the tabs of this browser that show the same recipient, where the
 * browser has Web Locks and BroadcastChannel: the connection starts as a follower, and tries only
 * once elected.
 */
export const joinTabs = (s: ConnectionState) => {
  const { host } = s;
  const locks = host?.navigator?.locks;
  if (!s.recipient || !locks || !host.BroadcastChannel) return;
  // Versioned, so that a tab still running an older SDK does not read these messages.
  const name = `tidings:1:${s.baseUrl}:${s.recipient}`;
  to(s, Input.Follow);
  s.election = createTabElection({
    name,
    locks,
    channel: new host.BroadcastChannel(name),
    environment: s,
    state: () => ({
      browser: s.ownBrowser,
      lastEventId: s.resumeId,
      status: s.currentStatus,
      detail: { ...s.lastDetail, error: undefined },
      ...(withPush && { vapidKey: s.pushControl?.vapidKey() }),
    }),
    onRole: (role: TabRole) => {
      // A follower's try ends: another tab holds the connection now.
      // (The election closes only when the connection has: its role then changes nothing.)
      to(s, role === TabRole.Leader ? Input.Lead : Input.Follow);
    },
    // A follower takes the leader's browser and status, and the notifications and inbox events it relays.
    onMessage: (message) => {
      const shared = message as {
        browser?: BrowserCredentials | null;
        lastEventId?: string;
        status?: TidingsStatus;
        detail?: TidingsStatusDetail;
        notification?: unknown;
        inbox?: unknown;
        vapidKey?: string | null;
      };
      const next = shared.browser ?? s.ownBrowser;
      const changed = next?.browserId !== s.ownBrowser?.browserId || shared.lastEventId !== s.resumeId;
      s.ownBrowser = next;
      s.resumeId = shared.lastEventId ?? s.resumeId;
      if (withPush && 'vapidKey' in shared) s.pushControl?.answer({ vapid_public_key: shared.vapidKey });
      if (shared.notification) handleNotification(s, shared.notification, false);
      if (withInbox && shared.inbox) s.inboxControl?.updated(shared.inbox, false);
      // Saved (with the ids seen) only on news: the leader's heartbeat repeats itself four times a second.
      if (changed || shared.notification) save(s);
      if (withPush && changed) s.pushControl?.sync();
      const leaderStatus = shared.status;
      if (
        (leaderStatus === 'open' || leaderStatus === 'reconnecting') &&
        (leaderStatus !== s.currentStatus || s.lastDetail?.leader)
      ) {
        setStatus(s, leaderStatus, { ...shared.detail, leader: false });
      } else if (leaderStatus === 'closed' && /^disconnect/.test(`${shared.detail?.reason}`)) stop(s, 'disconnected');
    },
  });
};
