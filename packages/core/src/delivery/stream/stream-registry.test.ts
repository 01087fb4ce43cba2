import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../ports/clock.js';
import { silentLogger } from '../../ports/logger.js';
import { noopMetrics } from '../../ports/metrics.js';
import type { DeliveryStore } from '../../ports/store.js';
import { createMemoryHub } from '../../shared/hub/memory-hub.js';
import { until } from '../../testing/until.js';
import { StreamRegistry, type StreamRegistryDeps } from './stream-registry.js';

type MarkSent = Parameters<DeliveryStore['markAttemptsSent']>[0];

/** A store that records each record of sending, and answers each as `answer` says (at once by default). */
function recordingStore(answer: (call: MarkSent) => Promise<void> = async () => {}) {
  const calls: MarkSent[] = [];
  const store = {
    markAttemptsSent: (call: MarkSent) => {
      calls.push(call);
      return answer(call);
    },
    holdBrowsers: async () => {},
    releaseBrowsers: async () => {},
  };
  return { calls, store: store as unknown as StreamRegistryDeps['store'] };
}

let registry: StreamRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

function newRegistry(store: StreamRegistryDeps['store']) {
  const clock = createManualClock(1_000);
  registry = new StreamRegistry({
    store,
    hub: createMemoryHub(),
    clock,
    logger: silentLogger,
    metrics: noopMetrics,
    heartbeatMs: 60_000,
    maxBufferBytes: 1 << 20,
    instanceId: 'ins_1',
    staleBrowserMs: 120_000,
    catchUpIntervalMs: 0,
  });
  return { registry, clock };
}

describe('StreamRegistry: the record of sending', () => {
  it('records each attempt sent at the time its stream wrote it, not when the batch is stored', async () => {
    const { calls, store } = recordingStore();
    const { registry, clock } = newRegistry(store);
    registry.written(['att_a']);
    clock.advance(7);
    registry.written(['att_b', 'att_a']);
    clock.advance(13);
    await registry.flush();
    expect(calls).toEqual([{ attemptIds: ['att_a', 'att_b'], now: 1_020, via: 'stream', sentAts: [1_000, 1_007] }]);
  });

  it('stamps anew an attempt written again while its record was being stored, for the record that follows', async () => {
    let fail: (error: Error) => void = () => {};
    const { calls, store } = recordingStore((call) =>
      call === calls[0] ? new Promise((_, reject) => (fail = reject)) : Promise.resolve(),
    );
    const { registry, clock } = newRegistry(store);
    registry.written(['att_a']);
    clock.advance(20);
    const first = registry.flush();
    await until(() => calls.length === 1, { what: 'the first record of sending' });
    // The stream resumes and writes it again while the first record is in flight, and fails.
    clock.advance(5);
    registry.written(['att_a']);
    fail(new Error('the store is away'));
    await first;
    clock.advance(20);
    await registry.flush();
    expect(calls.map((call) => call.sentAts)).toEqual([[1_000], [1_025]]);
  });
});
