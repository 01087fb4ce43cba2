import { describe, expect, it } from 'vitest';
import { SlidingLog } from './sliding-log.js';

describe('SlidingLog', () => {
  it('wraps around its ring, overwriting only timestamps that left the window', () => {
    const log = new SlidingLog(3, 100);
    for (const t of [0, 10, 20]) log.record(t);
    expect(log.isFull(99)).toBe(true);
    expect(log.waitMs(99)).toBe(1);
    expect(log.isFull(100)).toBe(false);
    log.record(100);
    log.record(110);
    expect(log.state('s', 115)).toEqual({ name: 's', limit: 3, windowMs: 100, remaining: 0, resetMs: 5 });
    expect(log.state('s', 125)).toEqual({ name: 's', limit: 3, windowMs: 100, remaining: 1, resetMs: 75 });
  });

  it('grows past its initial capacity up to the limit', () => {
    const log = new SlidingLog(20, 1_000);
    for (let t = 0; t < 20; t++) log.record(t);
    expect(log.isFull(19)).toBe(true);
    expect(log.state('s', 19)).toMatchObject({ remaining: 0, resetMs: 981 });
  });

  it('keeps the ring in order when a raised limit makes it grow after it wrapped', () => {
    const log = new SlidingLog(2, 100);
    for (const t of [0, 10, 100]) log.record(t);
    log.limit = 4;
    log.record(105);
    expect(log.state('s', 105)).toEqual({ name: 's', limit: 4, windowMs: 100, remaining: 1, resetMs: 5 });
    log.record(106);
    expect(log.isFull(109)).toBe(true);
    expect(log.waitMs(109)).toBe(1);
    expect(log.isFull(110)).toBe(false);
  });

  it('records a late timestamp as the newest, so the log stays sorted and errs towards refusing', () => {
    const log = new SlidingLog(3, 100);
    for (const t of [10, 60, 50]) log.record(t);
    // Held as 10, 60, 60: at 155 the two 60s are in the window, the next leaves at 160.
    expect(log.state('s', 155)).toMatchObject({ remaining: 1, resetMs: 5 });
    expect(log.isFull(109)).toBe(true);
    log.record(110);
    expect(log.isFull(159)).toBe(true);
    expect(log.isFull(160)).toBe(false);
  });

  it('holds a few windows of traffic when its limit is far above it, and still counts exactly', () => {
    const log = new SlidingLog(1_000_000_000, 1_000);
    for (let t = 0; t < 100_000; t++) log.record(t);
    // One timestamp per millisecond: two windows are 2,000 of them; trimmed in bulk, at most twice that.
    expect(log.size).toBeLessThanOrEqual(4_000);
    expect(log.size).toBeGreaterThanOrEqual(2_000);
    expect(log.state('s', 99_999)).toMatchObject({ remaining: 1_000_000_000 - 1_000 });
    // A request whose clock lags the newest by a window still sees every timestamp after its
    // window's start (98,001 to 99,999), older than the newest's window as some of them are.
    expect(log.state('s', 99_000)).toMatchObject({ remaining: 1_000_000_000 - 1_999 });
  });

  it('is idle only after a window of grace past its newest timestamp', () => {
    const log = new SlidingLog(2, 100);
    expect(log.isIdle(0)).toBe(true);
    log.record(50);
    expect(log.isIdle(249)).toBe(false);
    expect(log.isIdle(250)).toBe(true);
  });
});
