import { describe, expect, it } from 'vitest';
import type { Hub, HubMessage } from '../ports/hub.js';
import type { Delivery } from '../types.js';
import { until } from './until.js';

/**
 * Two (or more) hub instances on one bus, as two processes would hold them. An in-process hub
 * passes the same instance twice.
 */
export interface ConnectedHubs {
  hubs: [Hub, Hub, ...Hub[]];
  /** Closes what the factory opened besides the hubs. @default nothing */
  close?: () => Promise<void>;
}

/** Options of {@link runHubConformance}. */
export interface HubConformanceOptions {
  /** How long a message may take to reach another instance. @default 2000 */
  timeoutMs?: number;
}

function delivery(seq: number, browserId = 'brw_01kdwpvng2drmz2g38hpg65t69'): Delivery {
  return {
    attemptId: `att_${String(seq).padStart(26, '0')}`,
    browserId,
    seq,
    notificationId: `ntf_${String(seq).padStart(26, '0')}`,
    title: `Title ${seq} “quoted” ✓`,
    body: seq % 2 === 0 ? null : 'body\nwith a line break',
    url: '/orders/42',
    icon: null,
    tag: 'tag',
    data: seq % 2 === 0 ? null : { nested: { list: [1, 'two', null, true] }, emoji: '🎉' },
    createdAt: Date.UTC(2026, 0, 1) + seq,
    expiresAt: Date.UTC(2026, 0, 2) + seq,
  };
}

/** A quiet moment, long enough for a message that should not come to have come. */
function settle(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Registers the Hub port's conformance tests for one hub implementation. `connect` is called
 * for every test and returns hub instances that share one bus and have carried nothing yet; the
 * suite closes them afterwards.
 *
 * @example
 * runHubConformance('memory', async () => { const hub = createMemoryHub(); return { hubs: [hub, hub] }; });
 */
export function runHubConformance(
  name: string,
  connect: () => Promise<ConnectedHubs>,
  options: HubConformanceOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const quietMs = Math.min(200, timeoutMs / 4);

  async function withHubs(body: (hubs: Hub[]) => Promise<void>): Promise<void> {
    const connected = await connect();
    try {
      await body(connected.hubs);
    } finally {
      for (const hub of new Set(connected.hubs)) await hub.close();
      await connected.close?.();
    }
  }

  describe(`Hub conformance: ${name}`, () => {
    it('carries every kind of message, intact, to the subscribers of every instance, once each', () =>
      withHubs(async ([a, b]) => {
        const onA: HubMessage[] = [];
        const onB: HubMessage[] = [];
        a!.subscribe((message) => onA.push(message));
        b!.subscribe((message) => onB.push(message));
        const messages: HubMessage[] = [
          { type: 'deliver', delivery: delivery(1) },
          { type: 'deliver', delivery: delivery(2) },
          { type: 'close-browser', browserId: 'brw_01kdwpvng57bs7kc24qzt78m0m' },
          { type: 'close-project', projectId: 'proj_01kdwpvng57bs7kc24qzt78m0m' },
        ];
        await a!.publish(messages);
        await until(() => onA.length >= 4 && onB.length >= 4, { timeoutMs, what: 'four messages on each instance' });
        await settle(quietMs);
        expect(onA).toEqual(messages);
        expect(onB).toEqual(messages);
      }));

    it('keeps the order of one publisher, across many publishes', () =>
      withHubs(async ([a, b]) => {
        const seen: number[] = [];
        b!.subscribe((message) => {
          if (message.type === 'deliver') seen.push(message.delivery.seq);
        });
        for (let batch = 0; batch < 20; batch++) {
          await a!.publish(
            Array.from({ length: 5 }, (_, i) => ({ type: 'deliver' as const, delivery: delivery(batch * 5 + i + 1) })),
          );
        }
        await until(() => seen.length >= 100, { timeoutMs, what: 'a hundred deliveries' });
        expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      }));

    it('carries what several instances publish at once to every instance', () =>
      withHubs(async (hubs) => {
        const received = hubs.map(() => new Set<string>());
        hubs.forEach((hub, i) => {
          hub.subscribe((message) => {
            if (message.type === 'close-browser') received[i]!.add(message.browserId);
          });
        });
        await Promise.all(
          hubs.flatMap((hub, i) =>
            Array.from({ length: 25 }, (_, j) => hub.publish([{ type: 'close-browser', browserId: `brw_${i}_${j}` }])),
          ),
        );
        const total = hubs.length * 25;
        await until(() => received.every((set) => set.size >= total), { timeoutMs, what: 'every message everywhere' });
        for (const set of received) expect(set.size).toBe(total);
      }));

    it('stops calling a listener once it unsubscribed, and keeps calling the others', () =>
      withHubs(async ([a, b]) => {
        const kept: HubMessage[] = [];
        const dropped: HubMessage[] = [];
        b!.subscribe((message) => kept.push(message));
        const unsubscribe = b!.subscribe((message) => dropped.push(message));
        await a!.publish([{ type: 'close-browser', browserId: 'brw_first' }]);
        await until(() => kept.length === 1 && dropped.length === 1, { timeoutMs, what: 'the first message' });
        unsubscribe();
        await a!.publish([{ type: 'close-browser', browserId: 'brw_second' }]);
        await until(() => kept.length === 2, { timeoutMs, what: 'the second message' });
        await settle(quietMs);
        expect(dropped).toHaveLength(1);
      }));

    it('sends nothing for an empty publish', () =>
      withHubs(async ([a, b]) => {
        const seen: HubMessage[] = [];
        b!.subscribe((message) => seen.push(message));
        await a!.publish([]);
        await a!.publish([{ type: 'close-project', projectId: 'proj_marker' }]);
        await until(() => seen.length >= 1, { timeoutMs, what: 'the marker' });
        await settle(quietMs);
        expect(seen).toEqual([{ type: 'close-project', projectId: 'proj_marker' }]);
      }));
  });
}
