import { describe, expect, it } from 'vitest';
import { formatTime, relativeTime } from './layout.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('times on the dashboard', () => {
  it('shows a time to the second, so that the events of one minute are told apart', () => {
    expect(formatTime(NOW + 5_000)).toBe('2026-01-01 12:00:05 UTC');
    expect(formatTime(new Date(NOW + 59_000).toISOString())).toBe('2026-01-01 12:00:59 UTC');
    expect(formatTime(null)).toBe('—');
  });

  it('says how long ago a time was, in one rounded unit', () => {
    expect(relativeTime(NOW, NOW)).toBe('now');
    expect(relativeTime(NOW - 5_000, NOW)).toBe('5 s ago');
    expect(relativeTime(NOW - 89_000, NOW)).toBe('89 s ago');
    expect(relativeTime(NOW - 3 * 60_000, NOW)).toBe('3 min ago');
    expect(relativeTime(NOW - 5 * 3_600_000, NOW)).toBe('5 h ago');
    expect(relativeTime(new Date(NOW - 3 * 86_400_000).toISOString(), NOW)).toBe('3 d ago');
    expect(relativeTime(NOW + 2 * 3_600_000, NOW)).toBe('in 2 h');
  });
});
