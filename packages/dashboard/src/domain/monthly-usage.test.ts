import { describe, expect, it } from 'vitest';
import { axisTicks, lastMonthsRange, usageByMonth } from './monthly-usage.js';

const day = (date: string, live: number, test = 0) => ({
  date,
  live: { notifications: live, attempts: live, sent: live, delivered: 0 },
  test: { notifications: test, attempts: 0, sent: 0, delivered: 0 },
});

describe('usage by month', () => {
  it('reads the last 12 UTC months, this one included, in at most 366 days', () => {
    expect(lastMonthsRange('2026-01-10')).toEqual({ from: '2025-02-01', to: '2026-01-10' });
    expect(lastMonthsRange('2024-12-31')).toEqual({ from: '2024-01-01', to: '2024-12-31' });
    for (const today of ['2024-12-31', '2025-12-31', '2028-03-31']) {
      const { from, to } = lastMonthsRange(today);
      expect((Date.parse(to) - Date.parse(from)) / 86_400_000 + 1).toBeLessThanOrEqual(366);
    }
  });

  it('sums the days of each month, with its first and last day', () => {
    const months = usageByMonth([day('2025-12-30', 2, 1), day('2025-12-31', 3), day('2026-01-01', 4, 2)]);
    expect(months.map((month) => [month.month, month.from, month.to])).toEqual([
      ['2025-12', '2025-12-01', '2025-12-31'],
      ['2026-01', '2026-01-01', '2026-01-31'],
    ]);
    expect(months.map((month) => [month.live.notifications, month.testNotifications])).toEqual([
      [5, 1],
      [4, 2],
    ]);
    expect(usageByMonth([day('2024-02-10', 1)])[0]?.to).toBe('2024-02-29');
  });

  it('puts round ticks from 0 to at least the highest value', () => {
    expect(axisTicks(0)).toEqual([0, 1]);
    expect(axisTicks(3)).toEqual([0, 1, 2, 3]);
    expect(axisTicks(1000)).toEqual([0, 500, 1000]);
    expect(axisTicks(1200)).toEqual([0, 500, 1000, 1500]);
    expect(axisTicks(37)).toEqual([0, 10, 20, 30, 40]);
  });
});
