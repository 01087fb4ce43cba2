import { newId } from '@tidings/core';
import type { ClaimedJob, JobRecord, JobStore, NewJob } from '@tidings/core/store';
import type { Pool } from 'pg';
import { type Queryable, run, type Sql } from './db.js';
import { createGroup } from './group.js';

/** The queue's own methods: `onJobsEnqueued` is the store's, over its wakeups. */
type JobOperations = Omit<JobStore, 'onJobsEnqueued'>;

/** The columns of a job record, of the table under `alias`. */
function jobColumns(alias: string): string {
  const a = alias;
  return `${a}.id, ${a}.kind, ${a}.key, ${a}.project_id AS "projectId", ${a}.payload, ${a}.status, ${a}.attempts,
    ${a}.run_at AS "runAt", ${a}.created_at AS "createdAt", ${a}.finished_at AS "finishedAt",
    ${a}.last_error AS "lastError", ${a}.lease_owner AS "leaseOwner", ${a}.lease_until AS "leaseUntil",
    ${a}.keep_until AS "keepUntil", ${a}.seq`;
}

type JobRow = JobRecord & { seq: number };

/**
 * A job's outcome as its runner reports it: done, back to pending for a retry at `at`, or
 * failed; `at` is when it finished (done, failed) or when it runs again (pending).
 */
interface JobOutcome {
  id: string;
  owner: string;
  status: 'done' | 'pending' | 'failed';
  at: number;
  keepUntil: number | null;
  error: string | null;
}

function jobFromRow({ seq: _seq, ...job }: JobRow): JobRecord {
  return job;
}

/**
 * Inserts jobs with the caller's connection (inside its transaction), in the order given, created
 * at `now`, or each at its own time when `now` is a list (one per job). One statement, so that the
 * keys' advisory locks are taken in one order: a transaction enqueues once.
 */
export type InsertJobs = (
  db: Queryable,
  jobs: readonly NewJob[],
  now: number | readonly number[],
) => Promise<JobRecord[]>;

/**
 * The job queue on PostgreSQL. A claim locks its jobs with `FOR UPDATE SKIP LOCKED` and re-checks
 * them on the row's latest version, so that instances claiming together each take other jobs and
 * no job is held by two; the jobs of one key keep their order across instances (see the
 * migration's note on `seq`).
 */
export function jobOperations(
  pool: Pool,
  sql: Sql,
): JobOperations & {
  insertJobs: InsertJobs;
  insertJobsText: (jobs: readonly NewJob[], now: number) => [string, unknown[]];
} {
  const { t, statement } = sql;
  // The keys' advisory locks are taken in the order of their hashes, once each, before any row
  // is inserted (an init plan of the insert), and held to the commit.
  const insert = statement(
    'enqueue_jobs',
    `WITH locked AS (
       SELECT pg_advisory_xact_lock(h) FROM (
         SELECT DISTINCT hashtextextended('tidings.jobs ' || k, 0) AS h FROM unnest($2::text[]) AS k
       ) AS keys ORDER BY h
     )
     INSERT INTO ${t('jobs')} AS i (id, kind, key, project_id, payload, status, attempts, run_at, created_at)
     SELECT j.id, j.kind, j.key, j.project_id, j.payload::json, 'pending', 0, j.run_at, j.created_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::int8[])
         WITH ORDINALITY AS j(id, key, kind, project_id, payload, run_at, created_at, ord)
      WHERE (SELECT count(*) FROM locked) >= 0
      ORDER BY j.ord
     RETURNING ${jobColumns('i')}`,
    { planEachRun: true },
  );
  const claim = statement(
    'claim_jobs',
    `WITH candidate AS (
       SELECT j.seq FROM ${t('jobs')} AS j
        WHERE j.status IN ('pending', 'running')
          AND j.kind = ANY($1::text[])
          AND CASE j.status WHEN 'pending' THEN j.run_at <= $2 ELSE j.lease_until <= $2 END
          AND NOT EXISTS (
            SELECT 1 FROM ${t('jobs')} AS e
             WHERE e.key = j.key AND e.status IN ('pending', 'running') AND e.seq < j.seq
          )
        ORDER BY j.seq
        LIMIT $3
        FOR UPDATE OF j SKIP LOCKED
     )
     UPDATE ${t('jobs')} AS j SET status = 'running', attempts = j.attempts + 1, lease_owner = $5, lease_until = $4
       FROM candidate
      WHERE j.seq = candidate.seq
        AND j.status IN ('pending', 'running')
        AND CASE j.status WHEN 'pending' THEN j.run_at <= $2 ELSE j.lease_until <= $2 END
     RETURNING ${jobColumns('j')}`,
    { planEachRun: true },
  );
  const complete = statement(
    'complete_job',
    `UPDATE ${t('jobs')} SET status = 'done', finished_at = $3, keep_until = $4, lease_until = NULL
      WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
  );
  const retry = statement(
    'retry_job',
    `UPDATE ${t('jobs')} SET status = 'pending', run_at = $3, last_error = $4, lease_until = NULL
      WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
  );
  const fail = statement(
    'fail_job',
    `UPDATE ${t('jobs')} SET status = 'failed', last_error = $3, finished_at = $4, keep_until = $5, lease_until = NULL
      WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
  );
  // The outcomes of several jobs in one statement: each row of `o` is one job's, its status
  // saying which of the three above it is, and each column taking the same values as there.
  const settle = statement(
    'settle_jobs',
    `UPDATE ${t('jobs')} AS j SET
         status = o.status,
         finished_at = CASE o.status WHEN 'pending' THEN j.finished_at ELSE o.at END,
         keep_until = CASE o.status WHEN 'pending' THEN j.keep_until ELSE o.keep_until END,
         run_at = CASE o.status WHEN 'pending' THEN o.at ELSE j.run_at END,
         last_error = CASE o.status WHEN 'done' THEN j.last_error ELSE o.error END,
         lease_until = NULL
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::text[])
         AS o(id, owner, status, at, keep_until, error)
      WHERE j.id = o.id AND j.lease_owner = o.owner AND j.status = 'running'
     RETURNING j.id`,
  );
  const page = statement(
    'list_jobs',
    `SELECT ${jobColumns('l')} FROM ${t('jobs')} AS l
      WHERE l.project_id = $1
        AND ($2::text IS NULL OR l.kind = $2)
        AND ($3::text IS NULL OR l.key = $3)
        AND ($4::text IS NULL OR l.status = $4)
        AND ($5::text IS NULL OR l.seq < (SELECT b.seq FROM ${t('jobs')} AS b WHERE b.id = $5))
      ORDER BY l.seq DESC
      LIMIT $6`,
    { planEachRun: true },
  );

  const insertValues = (jobs: readonly NewJob[], now: number | readonly number[]): unknown[] => {
    const times = jobs.map((_, i) => (typeof now === 'number' ? now : now[i]!));
    return [
      times.map((at) => newId('job', at)),
      jobs.map((job) => job.key),
      jobs.map((job) => job.kind),
      jobs.map((job) => job.projectId),
      jobs.map((job) => JSON.stringify(job.payload ?? null)),
      jobs.map((job, i) => job.runAt ?? times[i]!),
      times,
    ];
  };
  const insertJobs: InsertJobs = async (db, jobs, now) => {
    if (jobs.length === 0) return [];
    const rows = await run<JobRow>(db, insert, insertValues(jobs, now));
    return rows.sort((a, b) => a.seq - b.seq).map(jobFromRow);
  };
  const changed = async (text: typeof complete, values: unknown[]) => {
    const result = await pool.query({ name: text.name ?? undefined, text: text.text, values });
    return result.rowCount === 1;
  };
  /**
   * The outcomes of one turn, one statement for all: a runner finishing many jobs at once (a
   * burst of webhook messages) makes one round trip and one commit instead of one each. Alone,
   * an outcome takes its own statement. Each resolves once the statement committed, with
   * whether its job was still its owner's to finish; two outcomes of one job never share a run.
   */
  const outcomes = createGroup<JobOutcome, boolean>({
    async runGroup(items) {
      if (items.length === 1) return [await settleAlone(items[0]!)];
      const rows = await run<{ id: string }>(pool, settle, [
        items.map((item) => item.id),
        items.map((item) => item.owner),
        items.map((item) => item.status),
        items.map((item) => item.at),
        items.map((item) => item.keepUntil),
        items.map((item) => item.error),
      ]);
      const settled = new Set(rows.map((row) => row.id));
      return items.map((item) => settled.has(item.id));
    },
    maxItems: 500,
    parallel: 4,
    mayJoin: (item, taken) => !taken.some((other) => other.id === item.id),
  });
  function settleAlone({ id, owner, status, at, keepUntil, error }: JobOutcome): Promise<boolean> {
    if (status === 'done') return changed(complete, [id, owner, at, keepUntil]);
    if (status === 'pending') return changed(retry, [id, owner, at, error]);
    return changed(fail, [id, owner, error, at, keepUntil]);
  }

  return {
    insertJobs,
    // The same insert for an application's transaction, as text and parameters.
    insertJobsText: (jobs, now) => [insert.text, insertValues(jobs, now)],
    enqueueJobs: ({ jobs, now }) => insertJobs(pool, jobs, now),
    async claimJobs({ kinds, limit, now, leaseMs, owner }) {
      if (kinds.length === 0 || limit <= 0) return [];
      const rows = await run<JobRow>(pool, claim, [kinds, now, limit, now + leaseMs, owner]);
      return rows.sort((a, b) => a.seq - b.seq).map((row) => jobFromRow(row) as ClaimedJob);
    },
    completeJob: ({ id, owner, now, keepUntil }) =>
      outcomes.run({ id, owner, status: 'done', at: now, keepUntil, error: null }),
    retryJob: ({ id, owner, runAt, error }) =>
      outcomes.run({ id, owner, status: 'pending', at: runAt, keepUntil: null, error }),
    failJob: ({ id, owner, error, now, keepUntil }) =>
      outcomes.run({ id, owner, status: 'failed', at: now, keepUntil, error }),
    async listJobs({ projectId, kind, key, status, limit, before }) {
      const rows = await run<JobRow>(pool, page, [
        projectId,
        kind ?? null,
        key ?? null,
        status ?? null,
        before ?? null,
        limit,
      ]);
      return rows.map(jobFromRow);
    },
  };
}
