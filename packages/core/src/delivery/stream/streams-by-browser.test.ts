import { describe, expect, it } from 'vitest';
import type { BrowserStream } from './browser-stream.js';
import { StreamsByBrowser } from './streams-by-browser.js';

const stream = (browserId: string) => ({ browserId }) as BrowserStream;

describe('StreamsByBrowser', () => {
  it('holds one or more streams per browser, and forgets each once', () => {
    const held = new StreamsByBrowser();
    const a1 = stream('brw_a');
    const a2 = stream('brw_a');
    const a3 = stream('brw_a');
    const b = stream('brw_b');
    for (const s of [a1, a2, a3, b, a2]) held.add(s);
    expect(held.size).toBe(4);
    expect(held.browsers).toBe(2);
    expect(held.of('brw_a')).toEqual([a1, a2, a3]);
    expect(held.of('brw_c')).toEqual([]);
    expect(held.delete(a2)).toBe(true);
    expect(held.delete(a2)).toBe(false);
    expect(held.delete(stream('brw_a'))).toBe(false);
    expect(held.delete(a1)).toBe(true);
    expect(held.of('brw_a')).toEqual([a3]);
    expect(held.delete(a3)).toBe(true);
    expect(held.delete(a3)).toBe(false);
    expect(held.browserIds()).toEqual(['brw_b']);
    expect(held.all()).toEqual([b]);
    expect(held.size).toBe(1);
  });

  it('hands out lists of their own: ending streams while walking one misses none', () => {
    const held = new StreamsByBrowser();
    const streams = [stream('brw_a'), stream('brw_a'), stream('brw_b')];
    for (const s of streams) held.add(s);
    const walked: BrowserStream[] = [];
    for (const s of held.all()) {
      walked.push(s);
      held.delete(s);
    }
    expect(walked).toEqual(streams);
    expect(held.size).toBe(0);
    expect(held.browsers).toBe(0);
  });
});
