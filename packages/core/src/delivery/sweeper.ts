import type { ResolvedOptionsWith } from '../options.js';
import type { Hub } from '../ports/hub.js';
import type { AccountStore, BrowserStore, InboxStore, MaintenanceStore, RequestLogStore } from '../ports/store.js';
import type { StreamRegistry } from './stream/stream-registry.js';

const PURGE_INTERVAL_MS = 60_000;
/** Request log entries deleted per transaction: a backlog is deleted batch by batch, never in one long lock. */
const REQUEST_LOG_PURGE_BATCH = 1_000;
/** Batches per purge at most; a larger backlog is left to the next purges. */
const REQUEST_LOG_PURGE_BATCHES = 20;

/** The roles of the store the sweeper uses. */
type SweptStores = AccountStore & BrowserStore & InboxStore & MaintenanceStore & RequestLogStore;

/** Deletes request log entries past the retention, in bounded batches. */
async function purgeRequestLog(store: RequestLogStore, before: number): Promise<void> {
  for (let batch = 0; batch < REQUEST_LOG_PURGE_BATCHES; batch++) {
    const deleted = await store.purgeRequestLog({ before, limit: REQUEST_LOG_PURGE_BATCH });
    if (deleted < REQUEST_LOG_PURGE_BATCH) return;
  }
}

/**
 * Closes the open streams of projects suspended by another process (the operator CLI on the
 * same store): this process's hub never heard of it, but the store knows.
 */
async function closeSuspendedStreams(
  options: ResolvedOptionsWith<SweptStores>,
  hub: Hub,
  streams: StreamRegistry,
): Promise<void> {
  for (const projectId of streams.openProjectIds()) {
    const project = await options.store.getProject(projectId);
    if (project === null || project.suspended) await hub.publish([{ type: 'close-project', projectId }]);
  }
}

/**
 * Moves time-driven states: attempts past their ttl become `expired`, browsers unseen for
 * `staleBrowserMs` are disconnected as stale (their open attempts `failed`), and idempotency
 * records and connect tokens past their expiry are deleted, and inbox items past their project's
 * retention, and request log entries past the deployment's; streams of projects suspended
 * elsewhere are closed.
 */
export function createSweeper(options: ResolvedOptionsWith<SweptStores>, hub: Hub, streams: StreamRegistry) {
  let lastPurge = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | null = null;

  async function sweepOnce(): Promise<void> {
    const { store, clock } = options;
    const now = clock.now();
    const expired = await store.expireAttempts({ now });
    if (expired.length > 0) options.metrics.attemptsEnded('expired', 'ttl_expired', expired.length);
    // Browsers with an open stream in this process are seen now, whatever the touch timer did.
    await streams.touchOpenBrowsers();
    const reaped = await store.reapStaleBrowsers({
      seenBefore: now - options.staleBrowserMs,
      now,
      // A browser Web Push reaches is kept without a stream, for as long as push retention says.
      ...(options.push === null ? {} : { pushSeenBefore: now - options.push.retentionMs }),
    });
    if (reaped.length > 0) {
      const failed = reaped.reduce((sum, browser) => sum + browser.failedAttemptIds.length, 0);
      if (failed > 0) options.metrics.attemptsEnded('failed', 'browser_stale', failed);
      await hub.publish(reaped.map(({ browserId }) => ({ type: 'close-browser', browserId })));
    }
    await closeSuspendedStreams(options, hub, streams);
    if (now - lastPurge >= PURGE_INTERVAL_MS) {
      await store.purgeExpired({ now });
      await store.purgeInbox({ now });
      await purgeRequestLog(store, now - options.requestLog.retentionMs);
      lastPurge = now;
    }
  }

  return {
    /** Runs one sweep; concurrent calls share the sweep under way. */
    sweep(): Promise<void> {
      running ??= sweepOnce().finally(() => {
        running = null;
      });
      return running;
    },
  };
}
