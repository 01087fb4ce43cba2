import type { UsageBreakdownDay, UsageDay } from '../records.js';

/** What a project has used: the usage and billing views read it, the sends count it. */
export interface UsageStore {
  /** Usage per UTC day, oldest first, for days in [fromDay, toDay] (`YYYY-MM-DD`). */
  getUsage(input: { projectId: string; fromDay: string; toDay: string }): Promise<UsageDay[]>;
  /**
   * A project's notifications created in [from, to) (epoch ms), counted per UTC day of creation
   * and mode, with their attempts, those sent and those delivered; days and modes without a
   * notification are left out. Ordered by day, then mode (live first).
   */
  getUsageBreakdown(input: { projectId: string; from: number; to: number }): Promise<UsageBreakdownDay[]>;
}
