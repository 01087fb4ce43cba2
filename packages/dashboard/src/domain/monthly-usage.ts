import type { UsageBreakdownDayObject } from '@tidings/core';

/** How many UTC months the monthly view of usage shows, the current one last. */
export const USAGE_MONTHS = 12;

/** One UTC month of a project's usage: the sums of its days. */
export interface MonthUsage {
  /** `YYYY-MM`. */
  month: string;
  /** The first and last day of the month (`YYYY-MM-DD`), for a link to its days. */
  from: string;
  to: string;
  live: UsageBreakdownDayObject['live'];
  testNotifications: number;
}

/** `YYYY-MM-DD` of a time, in UTC. */
function utcDate(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/**
 * The days the monthly view reads: from the first day of the month {@link USAGE_MONTHS} − 1
 * months before `today`'s to `today` (`YYYY-MM-DD`, UTC). At most 366 days, so one read of the
 * daily breakdown serves it.
 */
export function lastMonthsRange(today: string): { from: string; to: string } {
  const [year, month] = today.split('-').map(Number) as [number, number];
  return { from: utcDate(Date.UTC(year, month - USAGE_MONTHS, 1)), to: today };
}

/** Sums the days of a breakdown per UTC month, oldest first, every month of the range listed. */
export function usageByMonth(days: readonly UsageBreakdownDayObject[]): MonthUsage[] {
  const months = new Map<string, MonthUsage>();
  for (const day of days) {
    const key = day.date.slice(0, 7);
    let month = months.get(key);
    if (!month) {
      const [year, index] = key.split('-').map(Number) as [number, number];
      month = {
        month: key,
        from: `${key}-01`,
        to: utcDate(Date.UTC(year, index, 0)),
        live: { notifications: 0, attempts: 0, sent: 0, delivered: 0 },
        testNotifications: 0,
      };
      months.set(key, month);
    }
    month.live.notifications += day.live.notifications;
    month.live.attempts += day.live.attempts;
    month.live.sent += day.live.sent;
    month.live.delivered += day.live.delivered;
    month.testNotifications += day.test.notifications;
  }
  return [...months.values()];
}

/**
 * Round values for a chart's y-axis from 0 to at least `max`: 1, 2 or 5 times a power of ten
 * apart, at most `count` + 1 of them, so that the ticks read as plain numbers.
 */
export function axisTicks(max: number, count = 4): number[] {
  if (max <= 0) return [0, 1];
  const rough = max / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  // Counts are whole: no step under 1.
  const step = Math.max(1, [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? 1);
  const ticks: number[] = [];
  for (let value = 0; value < max + step; value += step) {
    ticks.push(value);
    if (value >= max) break;
  }
  return ticks;
}
