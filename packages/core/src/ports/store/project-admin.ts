import type { KeyMode, NotificationWithAttempts, ProjectRecord } from '../records.js';

/** One page of a project's log of sends, newest first: {@link ProjectAdminStore.listNotifications}. */
export interface ListNotificationsInput {
  projectId: string;
  /** Only notifications whose id sorts before this one (the previous page's last id). */
  beforeId: string | null;
  limit: number;
  recipient: string | null;
  mode: KeyMode | null;
}

/** One page of a project's recipients: {@link ProjectAdminStore.listRecipients}. */
export interface ListRecipientsInput {
  projectId: string;
  /** Only recipients whose id sorts after this one (the previous page's last id). */
  afterRecipient: string | null;
  limit: number;
}

/** A recipient in a list of a project's recipients. */
export interface RecipientSummary {
  recipient: string;
  /** When its first connect token was minted. */
  createdAt: number;
  /** How many of its browsers are connected now. */
  connectedBrowsers: number;
}

/** Input of {@link ProjectAdminStore.searchProjects}. */
export interface SearchProjectsInput {
  /**
   * Only projects whose name or id, or whose account's email, contains this text, ignoring the
   * case of ASCII letters. Every character matches itself: `%`, `_` and `\` are no wildcards.
   * Null: every project.
   */
  query: string | null;
  offset: number;
  limit: number;
}

/** Outcome of {@link ProjectAdminStore.searchProjects}: a page, oldest first, and the number of matches. */
export interface SearchProjectsResult {
  projects: { project: ProjectRecord; accountEmail: string }[];
  total: number;
}

/** What the operators' and the dashboard's views of projects read and delete: renames, searches, a project's log of sends, deletions. */
export interface ProjectAdminStore {
  /** Renames a project; null when unknown. */
  renameProject(input: { id: string; name: string }): Promise<ProjectRecord | null>;
  /** Every project of every account, oldest first: the operators' view. */
  listAllProjects(): Promise<ProjectRecord[]>;
  /** A page of every account's projects matching a text, oldest first, and how many match (one read). */
  searchProjects(input: SearchProjectsInput): Promise<SearchProjectsResult>;
  /** A page of a project's notifications with their attempts, newest first (ids sort by time). */
  listNotifications(input: ListNotificationsInput): Promise<NotificationWithAttempts[]>;
  /**
   * A page of a project's recipients in the order of their ids' bytes (ids are ASCII, so `Z`
   * comes before `a`), each with its connected browsers; none for an unknown project. Walks the
   * recipients' primary key, so a page costs the same however many recipients a project has.
   */
  listRecipients(input: ListRecipientsInput): Promise<RecipientSummary[]>;
  /**
   * Deletes a project and everything it holds, in one transaction: its keys (a request with one
   * answers 401 from the commit on, in every process), recipients, connect tokens, browsers,
   * notifications, attempts, idempotency records and usage. False when unknown.
   */
  deleteProject(input: { id: string }): Promise<boolean>;
  /**
   * Deletes an account and each of its projects as {@link ProjectAdminStore.deleteProject} does, in one
   * transaction; the ids of the deleted projects, or null when the account is unknown. What
   * other ports keep of the account (the dashboard's sessions) is theirs to delete first.
   */
  deleteAccount(input: { id: string }): Promise<{ projectIds: string[] } | null>;
}
