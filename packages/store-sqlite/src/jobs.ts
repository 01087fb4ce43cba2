import { newId } from '@tidings/core';
import type { ClaimedJob, JobRecord, JobStatus, JobStore, NewJob } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import type { GroupWrites } from './group-commit.js';

/** The queue's own methods: `onJobsEnqueued` is the store's, over its wakeups. */
type JobOperations = Omit<JobStore, 'onJobsEnqueued'>;

interface JobRow {
  seq: number;
  id: string;
  kind: string;
  key: string;
  project_id: string;
  payload: string;
  status: JobStatus;
  attempts: number;
  run_at: number;
  created_at: number;
  finished_at: number | null;
  last_error: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  keep_until: number | null;
}

function jobFromRow(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    key: row.key,
    projectId: row.project_id,
    payload: JSON.parse(row.payload) as unknown,
    status: row.status,
    attempts: row.attempts,
    runAt: row.run_at,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    lastError: row.last_error,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    keepUntil: row.keep_until,
  };
}

interface PageQuery {
  projectId: string;
  kind: string | null;
  key: string | null;
  status: string | null;
  before: string | null;
  limit: number;
}

/** Inserts jobs inside the caller's write transaction, in the order given. */
export type InsertJobs = (jobs: readonly NewJob[], now: number) => JobRecord[];

/** The statement that inserts jobs, for the writes that enqueue jobs in their own transaction. */
export function jobInserter(db: Database.Database): InsertJobs {
  const insert = db.prepare<[string, string, string, string, string, number, number], JobRow>(
    `INSERT INTO jobs (id, kind, key, project_id, payload, status, attempts, run_at, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?) RETURNING *`,
  );
  return (jobs, now) =>
    jobs.map((job) => {
      const payload = JSON.stringify(job.payload ?? null);
      return jobFromRow(
        insert.get(newId('job', now), job.kind, job.key, job.projectId, payload, job.runAt ?? now, now)!,
      );
    });
}

/**
 * The job queue on SQLite. One writer at a time holds the file (IMMEDIATE transactions), so a
 * claim's read and its update see no other claim in between, from this process or another on the
 * same file: two processes never hold one job. Jobs enqueued by a write are inserted in that
 * write's own transaction (see `jobInserter`).
 */
/**
 * The job queue's methods. A claim, and a job's completion, retry or failure, join the group
 * commit of the sends: those of one turn of the event loop (and those asked for while a flush
 * runs) share one transaction and one flush, instead of a commit and a flush each.
 */
export function jobOperations(db: Database.Database, insertJobs: InsertJobs, group: GroupWrites): JobOperations {
  // Walks the unfinished jobs in seq order; a job is due if pending and past its run time, or
  // running with its lease ended, and claimable only if no unfinished job of its key is older.
  const selectClaimable = db
    .prepare<[string, number, number, number], number>(
      `SELECT j.seq FROM jobs AS j
        WHERE j.status IN ('pending', 'running')
          AND j.kind IN (SELECT value FROM json_each(?))
          AND CASE j.status WHEN 'pending' THEN j.run_at <= ? ELSE j.lease_until <= ? END
          AND NOT EXISTS (
            SELECT 1 FROM jobs AS e
             WHERE e.key = j.key AND e.status IN ('pending', 'running') AND e.seq < j.seq
          )
        ORDER BY j.seq
        LIMIT ?`,
    )
    .pluck();
  const markClaimed = db.prepare<[string, number, number], JobRow>(
    `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = ?, lease_until = ?
      WHERE seq = ? RETURNING *`,
  );
  const complete = db.prepare<[number, number, string, string]>(
    `UPDATE jobs SET status = 'done', finished_at = ?, keep_until = ?, lease_until = NULL
      WHERE id = ? AND lease_owner = ? AND status = 'running'`,
  );
  const retry = db.prepare<[number, string, string, string]>(
    `UPDATE jobs SET status = 'pending', run_at = ?, last_error = ?, lease_until = NULL
      WHERE id = ? AND lease_owner = ? AND status = 'running'`,
  );
  const fail = db.prepare<[string, number, number, string, string]>(
    `UPDATE jobs SET status = 'failed', last_error = ?, finished_at = ?, keep_until = ?, lease_until = NULL
      WHERE id = ? AND lease_owner = ? AND status = 'running'`,
  );
  const selectPage = db.prepare<[PageQuery], JobRow>(
    `SELECT * FROM jobs
      WHERE project_id = @projectId
        AND (@kind IS NULL OR kind = @kind)
        AND (@key IS NULL OR key = @key)
        AND (@status IS NULL OR status = @status)
        AND (@before IS NULL OR seq < (SELECT seq FROM jobs WHERE id = @before))
      ORDER BY seq DESC
      LIMIT @limit`,
  );

  const enqueue = db.transaction((jobs: NewJob[], now: number) => insertJobs(jobs, now));
  // Run inside the group commit's IMMEDIATE transaction, which holds the write lock from the read
  // to the update.
  const claim = (kinds: string, limit: number, now: number, leaseMs: number, owner: string): ClaimedJob[] =>
    selectClaimable
      .all(kinds, now, now, limit)
      .map((seq) => jobFromRow(markClaimed.get(owner, now + leaseMs, seq)!) as ClaimedJob);

  return {
    async enqueueJobs({ jobs, now }) {
      return jobs.length === 0 ? [] : enqueue.immediate(jobs, now);
    },
    // In the group commit too: a claim asked for in the turn a job's outcome is recorded (the
    // runner claims as soon as a job ends) shares its transaction and flush, and sees it.
    async claimJobs({ kinds, limit, now, leaseMs, owner }) {
      if (kinds.length === 0 || limit <= 0) return [];
      return group.run(() => claim(JSON.stringify(kinds), limit, now, leaseMs, owner));
    },
    completeJob({ id, owner, now, keepUntil }) {
      return group.run(() => complete.run(now, keepUntil, id, owner).changes === 1);
    },
    retryJob({ id, owner, runAt, error }) {
      return group.run(() => retry.run(runAt, error, id, owner).changes === 1);
    },
    failJob({ id, owner, error, now, keepUntil }) {
      return group.run(() => fail.run(error, now, keepUntil, id, owner).changes === 1);
    },
    async listJobs({ projectId, kind, key, status, limit, before }) {
      const query = {
        projectId,
        kind: kind ?? null,
        key: key ?? null,
        status: status ?? null,
        before: before ?? null,
        limit,
      };
      return selectPage.all(query).map(jobFromRow);
    },
  };
}
