import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSE_SLICE } from '../src/delivery/stream/stream-registry.js';
import { type Metrics, noopMetrics } from '../src/index.js';
import { quietPeriod, until } from '../src/testing/until.js';
import { createHarness, type Harness } from './harness.js';

/**
 * Closing or losing thousands of streams at once must not hold the event loop: streams close a
 * slice per turn, and their browsers' last-seen times are written in a few chunked writes
 * instead of one write each. What is checked here is that shape, which does not depend on the
 * machine; bench/stalls.js measures the milliseconds.
 */
const STREAMS = 2_000;
/**
 * Ended streams are gathered for a short while and written 500 per call: how many calls that
 * takes depends on how fast the streams end, but never one per stream (which was 2,000 calls).
 */
const MOST_WRITES = STREAMS / 100;

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** Counts, per turn of the event loop, the streams that ended, and the store's writes of last-seen times. */
function observer() {
  let turn = 0;
  let ticking = false;
  const closedPerTurn = new Map<number, number>();
  const counts = { holdCalls: 0 };
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  const metrics: Metrics = {
    ...noopMetrics,
    streamClosed() {
      closedPerTurn.set(turn, (closedPerTurn.get(turn) ?? 0) + 1);
    },
    storeOperation(operation) {
      if (operation === 'holdBrowsers' || operation === 'releaseBrowsers') counts.holdCalls++;
    },
  };
  return {
    metrics,
    counts,
    start() {
      closedPerTurn.clear();
      counts.holdCalls = 0;
      ticking = true;
      setImmediate(tick);
    },
    stop() {
      ticking = false;
    },
    closed: () => [...closedPerTurn.values()].reduce((a, b) => a + b, 0),
    mostInOneTurn: () => Math.max(0, ...closedPerTurn.values()),
  };
}

async function openMany(harness: Harness, count: number) {
  const streams = [];
  for (let i = 0; i < count; i++) {
    const token = (await harness.tidings.createConnectToken({ projectId: harness.project.id, recipient: `r${i}` }))
      .token;
    const stream = readEvents(await harness.request(`/v1/connect/${token}`));
    await stream.next('ready');
    streams.push(stream);
  }
  return streams;
}

const waitLong = { timeoutMs: 20_000 };

describe(`${STREAMS} streams ending at once`, () => {
  it('a suspended project’s streams close a slice per turn, recorded in a few writes', async () => {
    const seen = observer();
    h = await createHarness({ limits: { connectPerIp: 10_000 }, extra: { metrics: seen.metrics } });
    await openMany(h, STREAMS);
    seen.start();
    await h.tidings.admin.suspendProject(h.project.id);
    await until(() => h!.tidings.openStreams() === 0, waitLong);
    await until(() => seen.counts.holdCalls >= Math.ceil(STREAMS / 500), waitLong);
    await quietPeriod(200, 'a late write past the bound');
    seen.stop();
    expect(seen.closed()).toBe(STREAMS);
    expect(seen.mostInOneTurn()).toBeLessThanOrEqual(CLOSE_SLICE);
    expect(seen.counts.holdCalls).toBeLessThanOrEqual(MOST_WRITES);
  }, 120_000);

  it('streams whose clients all leave at once are recorded in a few writes', async () => {
    const seen = observer();
    h = await createHarness({ limits: { connectPerIp: 10_000 }, extra: { metrics: seen.metrics } });
    const streams = await openMany(h, STREAMS);
    seen.start();
    for (const stream of streams) void stream.cancel();
    await until(() => h!.tidings.openStreams() === 0, waitLong);
    await until(() => seen.counts.holdCalls >= Math.ceil(STREAMS / 500), waitLong);
    await quietPeriod(200, 'a late write past the bound');
    seen.stop();
    expect(seen.closed()).toBe(STREAMS);
    expect(seen.counts.holdCalls).toBeLessThanOrEqual(MOST_WRITES);
  }, 120_000);

  it('a shutdown closes every stream a slice per turn and records them before it resolves', async () => {
    const seen = observer();
    h = await createHarness({ limits: { connectPerIp: 10_000 }, extra: { metrics: seen.metrics } });
    await openMany(h, STREAMS);
    seen.start();
    await h.tidings.close();
    seen.stop();
    expect(seen.closed()).toBe(STREAMS);
    expect(seen.mostInOneTurn()).toBeLessThanOrEqual(CLOSE_SLICE);
    // Written before close() resolved: at least a call per 500 streams, and no more than a few.
    expect(seen.counts.holdCalls).toBeGreaterThanOrEqual(Math.ceil(STREAMS / 500));
    expect(seen.counts.holdCalls).toBeLessThanOrEqual(MOST_WRITES);
  }, 120_000);
});
