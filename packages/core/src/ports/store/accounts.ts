import type { AccountRecord, ProjectRecord } from '../records.js';

/** Outcome of {@link AccountStore.createProject}: the limits are checked in the same transaction. */
export type CreateProjectResult =
  | { kind: 'created'; project: ProjectRecord }
  | { kind: 'account-not-found' }
  | { kind: 'email-not-verified' }
  | { kind: 'limit-reached' };

/** Accounts and their projects: what signing up, the operator CLI and every project-scoped check read and write. */
export interface AccountStore {
  createAccount(input: { id: string; email: string; verified: boolean; now: number }): Promise<AccountRecord>;
  getAccount(id: string): Promise<AccountRecord | null>;
  listAccounts(): Promise<AccountRecord[]>;
  setAccountVerified(input: { id: string; verified: boolean }): Promise<AccountRecord | null>;
  /** Creates a project if the account exists, is verified and has fewer than `maxProjects`. */
  createProject(input: {
    id: string;
    accountId: string;
    name: string;
    now: number;
    maxProjects: number;
  }): Promise<CreateProjectResult>;
  getProject(id: string): Promise<ProjectRecord | null>;
  listProjects(accountId: string): Promise<ProjectRecord[]>;
  /**
   * Suspends or resumes a project; null when unknown. Suspending records `reason` and `actor`
   * (default null); suspending a suspended project keeps its first time, reason and actor, as
   * revoking a key twice keeps the first time. Resuming clears all three.
   */
  setProjectSuspended(input: {
    id: string;
    suspended: boolean;
    now: number;
    reason?: string | null;
    actor?: string | null;
  }): Promise<ProjectRecord | null>;
}
