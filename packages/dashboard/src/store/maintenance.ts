/** What {@link DashboardMaintenanceStore.purgeExpired} deleted. */
export interface PurgedDashboardData {
  sessions: number;
  codes: number;
  pendingSignIns: number;
  challenges: number;
}

/** What spans the other roles' tables: the purge of what expired, and an account's deletion. */
export interface DashboardMaintenanceStore {
  /**
   * Deletes what has expired at `now` and can no longer be used: sessions past their idle or
   * absolute end, email codes and invitations, pending sign-ins, WebAuthn challenges. The audit
   * log, passkeys and recovery codes are kept. Answers how many of each went.
   */
  purgeExpired(input: { now: number }): Promise<PurgedDashboardData>;
  /**
   * Deletes what the dashboard keeps of an account, before the account itself goes: its
   * sessions, the codes issued to `email`, and the audit log of its projects (present and
   * deleted) and of what it did.
   */
  deleteAccountDashboardData(input: { accountId: string; email: string }): Promise<void>;
}
