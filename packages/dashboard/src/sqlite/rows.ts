import { type AccountRow, accountFromRow, type Bit, type SqliteConnection } from '@tidings/store-sqlite/sql';
import type { DashboardAccount } from '../store.js';

/** The store's connection, on which the dashboard's statements are prepared. */
export type Connection = SqliteConnection;

/** A row of the core's `accounts`, with the columns the dashboard's migrations added. */
export interface DashboardAccountRow extends AccountRow {
  password_hash: string | null;
  operator: Bit;
}

/** Maps an `accounts` row to the account as the dashboard sees it. */
export function dashboardAccountFromRow(row: DashboardAccountRow): DashboardAccount {
  return { account: accountFromRow(row), passwordHash: row.password_hash, operator: row.operator === 1 };
}
