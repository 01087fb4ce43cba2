import type { ResolvedOptionsWith } from '../options.js';
import type { Hub } from '../ports/hub.js';
import type { AccountStore, BrowserStore, MaintenanceStore } from '../ports/store.js';
import type { DeliveryHooks } from './hooks.js';
import type { StreamRegistry } from './stream/stream-registry.js';

const PURGE_INTERVAL_MS = 60_000;

/** The roles of the store the sweeper uses. */
type SweptStores = AccountStore & BrowserStore & MaintenanceStore;

/** A feature's time-driven work (`FeatureParts.sweep`): `purge` once a minute. */
export type FeatureSweep = (input: { now: number; purge: boolean }) => Promise<void>;

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
 * `staleBrowserMs` are disconnected as stale (their open attempts `failed`; a browser a feature
 * reaches without a stream is kept as long as it says), idempotency records and connect tokens
 * past their expiry are deleted, and streams of projects suspended elsewhere are closed. Then
 * each feature's own sweep runs (the inbox's and the request log's purges).
 */
export function createSweeper(
  options: ResolvedOptionsWith<SweptStores>,
  hub: Hub,
  streams: StreamRegistry,
  hooks: Pick<DeliveryHooks, 'keepsBrowsersSeenAfter'>,
  featureSweeps: readonly FeatureSweep[],
) {
  let lastPurge = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | null = null;

  async function sweepOnce(): Promise<void> {
    const { store, clock } = options;
    const now = clock.now();
    const expired = await store.expireAttempts({ now });
    if (expired.length > 0) options.metrics.attemptsEnded('expired', 'ttl_expired', expired.length);
    // Browsers with an open stream in this process are seen now, whatever the touch timer did.
    await streams.touchOpenBrowsers();
    // A browser Web Push reaches is kept without a stream, for as long as its retention says.
    const kept = hooks.keepsBrowsersSeenAfter.map((keep) => keep(now));
    const reaped = await store.reapStaleBrowsers({
      seenBefore: now - options.staleBrowserMs,
      now,
      ...(kept.length === 0 ? {} : { pushSeenBefore: Math.min(...kept) }),
    });
    if (reaped.length > 0) {
      const failed = reaped.reduce((sum, browser) => sum + browser.failedAttemptIds.length, 0);
      if (failed > 0) options.metrics.attemptsEnded('failed', 'browser_stale', failed);
      await hub.publish(reaped.map(({ browserId }) => ({ type: 'close-browser', browserId })));
    }
    await closeSuspendedStreams(options, hub, streams);
    const purge = now - lastPurge >= PURGE_INTERVAL_MS;
    if (purge) {
      await store.purgeExpired({ now });
      lastPurge = now;
    }
    for (const sweep of featureSweeps) await sweep({ now, purge });
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
