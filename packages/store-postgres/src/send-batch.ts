import type { AttemptRecord } from '@tidings/core';
import type { CreateNotificationInput, CreateNotificationResult, NewJob } from '@tidings/core/store';
import { acceptedAttempt } from '@tidings/core/store';
import type { Pool } from 'pg';
import { commitWith, keptPlanReady, type Queryable, run, type Sql, transaction } from './db.js';
import { type IdempotencyRow, idempotencyOutcome } from './idempotency.js';
import type { InsertJobs } from './jobs.js';
import { CLAIMED, notificationColumns, type SendStatements } from './send-statements.js';

/** The most sends recorded by one group. */
export const MAX_GROUP = 200;
/**
 * Groups in flight at once, per store. One: the sends that arrive while a group commits form the
 * next, so groups grow with the load. Two at once made groups half as large and answered fewer
 * sends per second (bench/README.md, "Figures behind the design").
 */
export const PARALLEL_GROUPS = 1;

/** A claim's row, with the key it belongs to. */
interface ClaimRow extends IdempotencyRow {
  project_id: string;
  key: string;
}

/**
 * Attempt ids a send makes beforehand beyond its recipient's browsers as last seen, so that a
 * browser or two connecting since do not cost the group its single statement.
 */
export const SPARE_ATTEMPT_IDS = 2;
/**
 * Attempt ids a send makes beforehand for a recipient this instance has not sent to yet, the
 * common case where recipients are many: enough for nearly every recipient, so that a first
 * send costs one statement too. An unused id costs well under a microsecond to make.
 */
export const UNSEEN_RECIPIENT_ATTEMPT_IDS = 16;
/** Recipients whose count of browsers is remembered; past this the counts start over. */
const REMEMBERED_RECIPIENTS = 10_000;

/** A row of the recording statements: an attempt recorded, or the one row saying ids ran short. */
interface RecordedRow {
  attempt_id: string;
  notification_id: string;
  browser_id: string;
  position: number;
  seq: number;
  short: boolean;
}

/** A send of the group that records something, and where its answer goes. */
interface Planned {
  index: number;
  input: CreateNotificationInput;
  browserIds: string[];
  attemptIds: string[];
}

/**
 * Records many sends in one go: the claims of their keys in one statement, then one statement
 * that finds and locks the connected browsers of all their recipients, raises each browser's
 * sequence by its number of attempts under its row lock and writes every notification, attempt
 * and usage count (a read of the browsers first, then the recording, when the attempt ids made
 * beforehand ran short), then the results under the keys with COMMIT. A group without keys runs
 * without an explicit transaction (its recording statement is atomic on its own), as a send
 * alone does. Each send's outcome is the one it would have had alone in the group's place:
 * browsers are locked in the order of their ids and keys in theirs, as by a send alone, so
 * groups and single sends queue rather than deadlock.
 */
export function batchOperations(
  pool: Pool,
  sql: Sql,
  statements: SendStatements['group'],
  usageShards: number,
  insertJobs: InsertJobs,
) {
  const { claimKeys, connectedBrowsers, record, recordAtOnce, settleKeys } = statements;
  const keepGroupPlan = keptPlanReady(sql.t('browsers'));

  /** The outcomes of the sends whose keys' claims found a stored result; the others are left undefined. */
  async function claim(db: Queryable, inputs: CreateNotificationInput[], outcomes: CreateNotificationResult[]) {
    const keyed = inputs.filter((input) => input.idempotency !== null);
    const rows = await run<ClaimRow>(db, claimKeys, [
      keyed.map((input) => input.notification.projectId),
      keyed.map((input) => input.idempotency!.key),
      keyed.map((input) => input.idempotency!.fingerprint),
      keyed.map((input) => input.notification.createdAt),
      keyed.map((input) => input.idempotency!.expiresAt),
    ]);
    const stored = new Map<string, ClaimRow>();
    for (const row of rows) stored.set(keyOf(row.project_id, row.key), row);
    for (const [index, input] of inputs.entries()) {
      if (input.idempotency === null) continue;
      const row = stored.get(keyOf(input.notification.projectId, input.idempotency.key));
      if (!row) throw new Error('the claim of an idempotency key returned no row');
      if (row.response_status === CLAIMED) continue;
      const outcome = idempotencyOutcome(row, input.idempotency.fingerprint);
      outcomes[index] =
        outcome.kind === 'mismatch'
          ? outcome
          : { kind: 'replay', response: { status: outcome.status, body: outcome.body } };
    }
  }

  /** The sends that have connected browsers, with their attempts' ids. */
  async function plan(db: Queryable, inputs: CreateNotificationInput[], outcomes: CreateNotificationResult[]) {
    const recipients = new Map<string, { projectId: string; recipient: string; browserIds: string[] }>();
    for (const [index, input] of inputs.entries()) {
      if (outcomes[index] !== undefined) continue;
      const { projectId, recipient } = input.notification;
      recipients.set(keyOf(projectId, recipient), { projectId, recipient, browserIds: [] });
    }
    const wanted = [...recipients.values()];
    if (wanted.length === 0) return [];
    const rows = await run<{ project_id: string; recipient: string; id: string }>(db, connectedBrowsers, [
      wanted.map((r) => r.projectId),
      wanted.map((r) => r.recipient),
    ]);
    for (const row of rows) recipients.get(keyOf(row.project_id, row.recipient))!.browserIds.push(row.id);
    for (const [key, { browserIds }] of recipients) rememberBrowsers(key, browserIds.length);
    const planned: Planned[] = [];
    for (const [index, input] of inputs.entries()) {
      if (outcomes[index] !== undefined) continue;
      const { browserIds } = recipients.get(keyOf(input.notification.projectId, input.notification.recipient))!;
      if (browserIds.length === 0) {
        outcomes[index] = { kind: 'no-connected-browser' };
        continue;
      }
      planned.push({ index, input, browserIds, attemptIds: browserIds.map(() => input.newAttemptId()) });
    }
    return planned;
  }

  /** Records the planned sends and sets their outcomes; a send whose browsers all left meanwhile has none. */
  async function recordAll(
    db: Queryable,
    planned: Planned[],
    outcomes: CreateNotificationResult[],
    failed: Map<number, unknown>,
  ) {
    if (planned.length === 0) return;
    const attempts = planned.flatMap((p, ord) =>
      p.browserIds.map((browserId, i) => ({
        id: p.attemptIds[i]!,
        notificationId: p.input.notification.id,
        browserId,
        position: i + 1,
        ord,
      })),
    );
    const rows = await run<{ attempt_id: string; seq: number }>(db, record, [
      ...notificationColumns(planned.map((p) => p.input.notification)),
      attempts.map((a) => a.id),
      attempts.map((a) => a.notificationId),
      attempts.map((a) => a.browserId),
      attempts.map((a) => a.position),
      attempts.map((a) => a.ord),
      [...new Set(attempts.map((a) => a.browserId))],
      usageShards,
    ]);
    const seqs = new Map(rows.map((row) => [row.attempt_id, row.seq]));
    for (const p of planned) {
      const recorded: AttemptRecord[] = [];
      for (const [i, attemptId] of p.attemptIds.entries()) {
        const seq = seqs.get(attemptId);
        if (seq !== undefined) recorded.push(acceptedAttempt(p.input.notification, attemptId, p.browserIds[i]!, seq));
      }
      settle(p.index, p.input, recorded, outcomes, failed);
    }
  }

  /** How many browsers each recipient was last seen with: a hint for the ids a send makes beforehand. */
  const browserCounts = new Map<string, number>();
  function rememberBrowsers(recipientKey: string, count: number) {
    if (browserCounts.size >= REMEMBERED_RECIPIENTS && !browserCounts.has(recipientKey)) browserCounts.clear();
    browserCounts.set(recipientKey, count);
  }

  /**
   * Records the sends without an outcome yet in one statement, each with attempt ids made
   * beforehand. Resolves false, having written nothing, when a send had more connected browsers
   * than ids.
   */
  async function recordNamed(
    db: Queryable,
    inputs: CreateNotificationInput[],
    outcomes: CreateNotificationResult[],
    failed: Map<number, unknown>,
  ): Promise<boolean> {
    const sends: { index: number; input: CreateNotificationInput; recipientKey: string; attemptIds: string[] }[] = [];
    for (const [index, input] of inputs.entries()) {
      if (outcomes[index] !== undefined) continue;
      const recipientKey = keyOf(input.notification.projectId, input.notification.recipient);
      const known = browserCounts.get(recipientKey);
      const ids = known === undefined ? UNSEEN_RECIPIENT_ATTEMPT_IDS : known + SPARE_ATTEMPT_IDS;
      sends.push({ index, input, recipientKey, attemptIds: Array.from({ length: ids }, () => input.newAttemptId()) });
    }
    if (sends.length === 0) return true;
    const recording = (await keepGroupPlan(db)) ? recordAtOnce.kept : recordAtOnce.planned;
    const rows = await run<RecordedRow>(db, recording, [
      ...notificationColumns(sends.map((send) => send.input.notification)),
      sends.flatMap((send, ord) => send.attemptIds.map(() => ord + 1)),
      sends.flatMap((send) => send.attemptIds.map((_, i) => i + 1)),
      sends.flatMap((send) => send.attemptIds),
      usageShards,
    ]);
    if (rows.some((row) => row.short)) return false;
    const byNotification = new Map<string, RecordedRow[]>();
    for (const row of rows) {
      const own = byNotification.get(row.notification_id);
      if (own) own.push(row);
      else byNotification.set(row.notification_id, [row]);
    }
    for (const send of sends) {
      const { notification } = send.input;
      const own = (byNotification.get(notification.id) ?? []).sort((a, b) => a.position - b.position);
      rememberBrowsers(send.recipientKey, own.length);
      const recorded = own.map((row) => acceptedAttempt(notification, row.attempt_id, row.browser_id, row.seq));
      settle(send.index, send.input, recorded, outcomes, failed);
    }
    return true;
  }

  /** Records the sends without an outcome yet: in one statement, or in two when ids ran short. */
  async function recordSends(
    db: Queryable,
    inputs: CreateNotificationInput[],
    outcomes: CreateNotificationResult[],
    failed: Map<number, unknown>,
  ) {
    if (await recordNamed(db, inputs, outcomes, failed)) return;
    await recordAll(db, await plan(db, inputs, outcomes), outcomes, failed);
  }

  /** The settling statement's values: results of created keyed sends, claims of the others to drop. */
  function settleValues(inputs: CreateNotificationInput[], outcomes: CreateNotificationResult[]): unknown[] {
    const stored: { projectId: string; key: string; status: number; body: string }[] = [];
    const dropped: { projectId: string; key: string }[] = [];
    for (const [index, input] of inputs.entries()) {
      if (input.idempotency === null) continue;
      const outcome = outcomes[index]!;
      const at = { projectId: input.notification.projectId, key: input.idempotency.key };
      if (outcome.kind === 'created') stored.push({ ...at, ...outcome.response });
      else if (outcome.kind === 'no-connected-browser') dropped.push(at);
    }
    return [
      stored.map((s) => s.projectId),
      stored.map((s) => s.key),
      stored.map((s) => s.status),
      stored.map((s) => s.body),
      dropped.map((d) => d.projectId),
      dropped.map((d) => d.key),
    ];
  }

  /** One outcome per send, in order; a send whose answer could not be rendered rejects alone. */
  return async function sendTogether(
    inputs: CreateNotificationInput[],
  ): Promise<Array<CreateNotificationResult | Promise<CreateNotificationResult>>> {
    const outcomes: CreateNotificationResult[] = new Array(inputs.length);
    const failed = new Map<number, unknown>();
    const keyed = inputs.some((input) => input.idempotency !== null);
    if (!keyed && inputs.every((input) => !input.jobs)) {
      await recordSends(pool, inputs, outcomes, failed);
    } else {
      await transaction(pool, async (client) => {
        if (keyed) await claim(client, inputs, outcomes);
        await recordSends(client, inputs, outcomes, failed);
        // The jobs of the created sends, in one statement with the keys' results and COMMIT. A
        // jobs function that throws rolls the group back, and each send runs again alone.
        const jobs = groupJobs(inputs, outcomes, failed);
        return commitWith(
          client,
          [
            keyed ? () => run(client, settleKeys, settleValues(inputs, outcomes)) : null,
            jobs.jobs.length > 0 ? () => insertJobs(client, jobs.jobs, jobs.times) : null,
          ],
          undefined,
        );
      });
    }
    return outcomes.map((outcome, index) => (failed.has(index) ? Promise.reject(failed.get(index)) : outcome));
  };
}

/** The jobs of the group's created sends, each created at its notification's time. */
function groupJobs(
  inputs: CreateNotificationInput[],
  outcomes: CreateNotificationResult[],
  failed: Map<number, unknown>,
): { jobs: NewJob[]; times: number[] } {
  const jobs: NewJob[] = [];
  const times: number[] = [];
  for (const [index, input] of inputs.entries()) {
    const outcome = outcomes[index];
    if (!input.jobs || outcome?.kind !== 'created' || failed.has(index)) continue;
    for (const job of input.jobs(outcome.created)) {
      jobs.push(job);
      times.push(input.notification.createdAt);
    }
  }
  return { jobs, times };
}

/** A send's outcome from the attempts recorded for it: none means its browsers had all left. */
function settle(
  index: number,
  input: CreateNotificationInput,
  recorded: AttemptRecord[],
  outcomes: CreateNotificationResult[],
  failed: Map<number, unknown>,
) {
  if (recorded.length === 0) {
    outcomes[index] = { kind: 'no-connected-browser' };
    return;
  }
  const created = { notification: input.notification, attempts: recorded };
  try {
    outcomes[index] = { kind: 'created', created, response: input.render(created) };
  } catch (error) {
    // This send fails alone; the others of the group stand. Nothing is kept under its key.
    failed.set(index, error);
    outcomes[index] = { kind: 'no-connected-browser' };
  }
}

function keyOf(projectId: string, name: string): string {
  return `${projectId}\n${name}`;
}
