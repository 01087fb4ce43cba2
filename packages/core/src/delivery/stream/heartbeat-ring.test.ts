import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeartbeatRing } from './heartbeat-ring.js';

function beater() {
  const beats: number[] = [];
  return { beats, heartbeat: () => beats.push(Date.now()), ringSlot: -1, ringIndex: -1 };
}

describe('HeartbeatRing', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('beats every item at least once per interval, the first time within one interval', () => {
    const ring = new HeartbeatRing(15_000);
    const start = Date.now();
    const items = Array.from({ length: 1_000 }, beater);
    for (const item of items) ring.add(item);
    vi.advanceTimersByTime(60_000);
    for (const item of items) {
      expect(item.beats[0]! - start).toBeLessThanOrEqual(15_000);
      for (let i = 1; i < item.beats.length; i++)
        expect(item.beats[i]! - item.beats[i - 1]!).toBeLessThanOrEqual(15_000);
      expect(item.beats.length).toBeGreaterThanOrEqual(4);
    }
  });

  it('never beats all items in one tick: 10 000 items, 150 slots of 100 ms', () => {
    const ring = new HeartbeatRing(15_000);
    let beatsThisTick = 0;
    const item = () => ({ heartbeat: () => beatsThisTick++, ringSlot: -1, ringIndex: -1 });
    for (let i = 0; i < 10_000; i++) ring.add(item());
    let most = 0;
    for (let tick = 0; tick < 300; tick++) {
      beatsThisTick = 0;
      vi.advanceTimersByTime(100);
      most = Math.max(most, beatsThisTick);
    }
    expect(most).toBe(Math.ceil(10_000 / 150));
  });

  it('stops beating a deleted item, and holds no timer once empty', () => {
    const ring = new HeartbeatRing(1_000);
    const kept = beater();
    const gone = beater();
    ring.add(kept);
    ring.add(gone);
    ring.delete(gone);
    vi.advanceTimersByTime(5_000);
    expect(gone.beats).toEqual([]);
    expect(kept.beats.length).toBe(5);
    ring.delete(kept);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('with an interval shorter than a tick, beats everything every interval', () => {
    const ring = new HeartbeatRing(50);
    const item = beater();
    ring.add(item);
    vi.advanceTimersByTime(500);
    expect(item.beats.length).toBe(10);
  });

  it('keeps beating every other member when members leave, also from inside a heartbeat', () => {
    const ring = new HeartbeatRing(1_000);
    const items = Array.from({ length: 100 }, beater);
    for (const item of items) ring.add(item);
    // Every third member leaves at once; every fifth leaves during its own first heartbeat.
    for (let i = 0; i < items.length; i += 3) ring.delete(items[i]!);
    for (let i = 1; i < items.length; i += 5) {
      const item = items[i]!;
      item.heartbeat = () => {
        ring.delete(item);
        return item.beats.push(Date.now());
      };
    }
    vi.advanceTimersByTime(3_000);
    items.forEach((item, i) => {
      if (i % 3 === 0) expect(item.beats).toEqual([]);
      else if (i % 5 === 1) expect(item.beats).toHaveLength(1);
      else expect(item.beats).toHaveLength(3);
    });
    expect(ring.size).toBe(items.filter((_, i) => i % 3 !== 0 && i % 5 !== 1).length);
    ring.add(items[0]!);
    ring.add(items[0]!);
    expect(ring.size).toBe(items.filter((_, i) => i % 3 !== 0 && i % 5 !== 1).length + 1);
  });
});
