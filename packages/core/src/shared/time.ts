const DAY_MS = 86_400_000;

/** The day last formatted: every send counts usage under its UTC day, nearly always the same one. */
let lastDayStart = Number.NaN;
let lastDay = '';

/** The UTC day of an epoch-milliseconds time, as `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  const dayStart = Math.floor(ms / DAY_MS) * DAY_MS;
  if (dayStart !== lastDayStart) {
    lastDay = new Date(dayStart).toISOString().slice(0, 10);
    lastDayStart = dayStart;
  }
  return lastDay;
}
