import type { AccountRecord } from '@tidings/core';
import { ACCOUNT_COLUMNS, type poolOf, type Sql, type Statement } from '@tidings/store-postgres/sql';
import type { DashboardAccount } from '../store.js';

/** The store's pool, on which the dashboard's statements run. */
export type Pool = ReturnType<typeof poolOf>;

/** An account's columns with what signing in needs, read as {@link DashboardAccountRow}. */
export const DASHBOARD_ACCOUNT = `${ACCOUNT_COLUMNS}, password_hash AS "passwordHash", operator`;

/** A row of the core's `accounts`, with the columns the dashboard's migrations added. */
export interface DashboardAccountRow extends AccountRecord {
  passwordHash: string | null;
  operator: boolean;
}

/** The account as the dashboard sees it. */
export function dashboardAccount({ passwordHash, operator, ...account }: DashboardAccountRow): DashboardAccount {
  return { account, passwordHash, operator };
}

/**
 * A statement of the dashboard's, named apart from the store's own: both are prepared on the
 * same connections, under names that must not meet.
 */
export function dashboardStatement(sql: Sql, name: string, text: string): Statement {
  return sql.statement(`dashboard_${name}`, text);
}
