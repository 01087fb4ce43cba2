import { describe, expect, it } from 'vitest';
import type { Hub, HubMessage } from '../ports/hub.js';
import type { Delivery } from '../ports/records.js';
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
  /**
   * Cuts the connection on which `hub` receives (a Redis hub: its subscribing connection is
   * killed), for the cases of a hub that reconnects; they are registered only with it.
   */
  interrupt?: (hub: Hub) => Promise<void>;
}

/** Follows every browser on the hub and waits for every follow. */
async function follow(hub: Hub, browserIds: readonly string[]): Promise<void> {
  await Promise.all(browserIds.map((browserId) => hub.follow?.(browserId)));
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
    inboxVersion: seq,
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
        for (const hub of [a!, b!]) await follow(hub, [delivery(1).browserId, 'brw_01kdwpvng57bs7kc24qzt78m0m']);
        const messages: HubMessage[] = [
          { type: 'deliver', delivery: delivery(1) },
          { type: 'deliver', delivery: delivery(2) },
          { type: 'close-browser', browserId: 'brw_01kdwpvng57bs7kc24qzt78m0m' },
          { type: 'close-project', projectId: 'proj_01kdwpvng57bs7kc24qzt78m0m' },
        ];
        await a!.publish(messages);
        await until(() => onA.length >= 4 && onB.length >= 4, { timeoutMs, what: 'four messages on each instance' });
        await settle(quietMs);
        // Order is promised per browser (the next case), not across browsers and projects,
        // which a cluster carries on the nodes of different slots.
        const sorted = (list: HubMessage[]) => list.map((message) => JSON.stringify(message)).sort();
        expect(sorted(onA)).toEqual(sorted(messages));
        expect(sorted(onB)).toEqual(sorted(messages));
        expect(onB.filter((message) => message.type === 'deliver')).toEqual(messages.slice(0, 2));
      }));

    it('keeps the order of one publisher for one browser, across many publishes', () =>
      withHubs(async ([a, b]) => {
        const seen: number[] = [];
        b!.subscribe((message) => {
          if (message.type === 'deliver') seen.push(message.delivery.seq);
        });
        await follow(b!, [delivery(1).browserId]);
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
        const browserIds = hubs.flatMap((_, i) => Array.from({ length: 25 }, (_, j) => `brw_${i}_${j}`));
        for (const hub of hubs) await follow(hub, browserIds);
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
        await follow(b!, ['brw_first', 'brw_second']);
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

    it('carries a browser message only to the instances that follow the browser, and a project message to all', () =>
      withHubs(async (hubs) => {
        const [a, b] = hubs as [Hub, Hub];
        const onA: string[] = [];
        const onB: string[] = [];
        const label = (message: HubMessage) =>
          message.type === 'deliver'
            ? message.delivery.browserId
            : message.type === 'close-browser'
              ? `close:${message.browserId}`
              : message.type === 'inbox'
                ? `inbox:${message.browserId}:${message.update}`
                : `project:${message.projectId}`;
        a.subscribe((message) => onA.push(label(message)));
        b.subscribe((message) => onB.push(label(message)));
        await follow(a, ['brw_on_a']);
        await follow(b, ['brw_on_b']);
        // An instance receives the messages of the browsers it follows; one hub object on both
        // sides (an in-process hub) follows both browsers.
        const followedBy = (hub: Hub) => (a === b ? ['brw_on_a', 'brw_on_b'] : hub === a ? ['brw_on_a'] : ['brw_on_b']);
        const expected = (hub: Hub) => [
          ...['brw_on_a', 'brw_on_b', 'brw_nowhere'].filter((id) => followedBy(hub).includes(id)),
          ...followedBy(hub).map((id) => `close:${id}`),
          ...followedBy(hub).map((id) => `inbox:${id}:{"counts":1}`),
          'project:proj_everywhere',
        ];
        const publisher = hubs[hubs.length - 1]!;
        await publisher.publish([
          { type: 'deliver', delivery: delivery(1, 'brw_on_a') },
          { type: 'deliver', delivery: delivery(1, 'brw_on_b') },
          { type: 'deliver', delivery: delivery(1, 'brw_nowhere') },
          { type: 'close-browser', browserId: 'brw_on_a' },
          { type: 'close-browser', browserId: 'brw_on_b' },
          { type: 'close-browser', browserId: 'brw_nowhere' },
          { type: 'inbox', browserId: 'brw_on_a', update: '{"counts":1}' },
          { type: 'inbox', browserId: 'brw_on_b', update: '{"counts":1}' },
          { type: 'inbox', browserId: 'brw_nowhere', update: '{"counts":1}' },
        ]);
        await publisher.publish([{ type: 'close-project', projectId: 'proj_everywhere' }]);
        await until(() => onA.includes('project:proj_everywhere') && onB.includes('project:proj_everywhere'), {
          timeoutMs,
          what: 'the project message on both instances',
        });
        await until(() => onA.length >= expected(a).length && onB.length >= expected(b).length, {
          timeoutMs,
          what: 'the followed browsers’ messages',
        });
        await settle(quietMs);
        expect([...onA].sort()).toEqual(expected(a).sort());
        expect([...onB].sort()).toEqual(expected(b).sort());
      }));

    it('keeps carrying a browser’s messages until its last follow ends, and then no more', () =>
      withHubs(async ([a, b]) => {
        const seen: string[] = [];
        b!.subscribe((message) => {
          if (message.type === 'deliver') seen.push(message.delivery.attemptId);
          if (message.type === 'close-project') seen.push(message.projectId);
        });
        const browserId = 'brw_twice';
        // Two streams of one browser: the first that ends leaves the second one its messages.
        await follow(b!, [browserId, browserId]);
        // A round waits for what it expects and then for a quiet moment: a cluster carries the
        // browser's channel and the marker's on different nodes, so the marker proves nothing
        // about the order, only that the round's publishes went out.
        const round = async (seq: number, marker: string, carried: boolean) => {
          await a!.publish([{ type: 'deliver', delivery: delivery(seq, browserId) }]);
          await a!.publish([{ type: 'close-project', projectId: marker }]);
          const attemptId = delivery(seq).attemptId;
          await until(() => seen.includes(marker) && (!carried || seen.includes(attemptId)), {
            timeoutMs,
            what: carried ? `${attemptId} and ${marker}` : marker,
          });
          await settle(quietMs);
        };
        await round(1, 'proj_both', true);
        b!.unfollow?.(browserId);
        await round(2, 'proj_one_left', true);
        b!.unfollow?.(browserId);
        await round(3, 'proj_none_left', false);
        expect([...seen].sort()).toEqual(
          [delivery(1).attemptId, 'proj_both', delivery(2).attemptId, 'proj_one_left', 'proj_none_left'].sort(),
        );
        // And following it again carries its messages again.
        await follow(b!, [browserId]);
        await round(4, 'proj_again', true);
        expect(seen.slice(-2).sort()).toEqual([delivery(4).attemptId, 'proj_again'].sort());
      }));

    it('carries what is published once a follow resolved, at once: a stream reads its backlog only then', () =>
      withHubs(async ([a, b]) => {
        const seen = new Set<string>();
        b!.subscribe((message) => {
          if (message.type === 'deliver') seen.add(message.delivery.browserId);
        });
        // Each publish follows its follow without a pause: a follow that resolved before the hub
        // receives the browser's messages loses some of them.
        const browserIds = Array.from({ length: 30 }, (_, i) => `brw_opened_${i}`);
        for (const browserId of browserIds) {
          await b!.follow?.(browserId);
          await a!.publish([{ type: 'deliver', delivery: delivery(1, browserId) }]);
        }
        // Many streams opening at once, as after a restart.
        const burst = Array.from({ length: 200 }, (_, i) => `brw_burst_${i}`);
        await Promise.all(
          burst.map(async (browserId) => {
            await b!.follow?.(browserId);
            await a!.publish([{ type: 'deliver', delivery: delivery(1, browserId) }]);
          }),
        );
        const all = [...browserIds, ...burst];
        await until(() => all.every((id) => seen.has(id)), { timeoutMs, what: 'every browser’s first delivery' });
        expect(seen.size).toBe(all.length);
      }));

    it('routes among many followed browsers: each instance gets exactly those it follows', () =>
      withHubs(async (hubs) => {
        const [a, b] = hubs as [Hub, Hub];
        const onB = new Map<string, number>();
        b.subscribe((message) => {
          if (message.type === 'deliver')
            onB.set(message.delivery.browserId, (onB.get(message.delivery.browserId) ?? 0) + 1);
        });
        const followed = Array.from({ length: 500 }, (_, i) => `brw_many_${i}`);
        const others = Array.from({ length: 500 }, (_, i) => `brw_other_${i}`);
        await follow(b, followed);
        if (a === b) {
          // One process: the other instance's browsers are followed by the same hub.
          await follow(a, others);
        }
        await a.publish(
          [...followed, ...others].map((id) => ({ type: 'deliver' as const, delivery: delivery(7, id) })),
        );
        await a.publish([{ type: 'close-project', projectId: 'proj_many_marker' }]);
        const expected = a === b ? [...followed, ...others] : followed;
        await until(() => expected.every((id) => onB.has(id)), {
          timeoutMs,
          what: 'every followed browser’s delivery',
        });
        await settle(quietMs);
        expect([...onB.keys()].sort()).toEqual([...expected].sort());
        expect([...onB.values()].every((count) => count === 1)).toBe(true);
        for (const id of followed) b.unfollow?.(id);
      }));
  });
  if (options.interrupt) {
    const interrupt = options.interrupt;
    describe(`Hub conformance: ${name}, when the connection breaks`, () => {
      it('follows again what it followed, and what was followed meanwhile, once the connection is back', () =>
        withHubs(async ([a, b]) => {
          const seen = new Set<string>();
          let missed = 0;
          b!.subscribe(
            (message) => {
              if (message.type === 'deliver') seen.add(`${message.delivery.browserId}:${message.delivery.seq}`);
            },
            () => {
              missed++;
            },
          );
          await follow(b!, ['brw_before_break', 'brw_left_during_break']);
          await a!.publish([{ type: 'deliver', delivery: delivery(1, 'brw_before_break') }]);
          await until(() => seen.has('brw_before_break:1'), { timeoutMs, what: 'the first delivery' });
          await interrupt(b!);
          // Streams open and end while the hub reconnects: their follows resolve, without waiting
          // for the connection, and count once it is back.
          const during = b!.follow?.('brw_opened_during_break');
          b!.unfollow?.('brw_left_during_break');
          await during;
          await until(() => missed >= 1, {
            timeoutMs: timeoutMs * 5,
            what: 'the hub to report possibly missed messages',
          });
          await until(
            async () => {
              await a!.publish([
                { type: 'deliver', delivery: delivery(2, 'brw_before_break') },
                { type: 'deliver', delivery: delivery(2, 'brw_opened_during_break') },
                { type: 'deliver', delivery: delivery(2, 'brw_left_during_break') },
              ]);
              return seen.has('brw_before_break:2') && seen.has('brw_opened_during_break:2');
            },
            { timeoutMs: timeoutMs * 5, what: 'deliveries after the break' },
          );
          await a!.publish([{ type: 'close-project', projectId: 'proj_marker' }]);
          await settle(quietMs);
          expect(seen.has('brw_left_during_break:2')).toBe(false);
        }));
    });
  }
}
