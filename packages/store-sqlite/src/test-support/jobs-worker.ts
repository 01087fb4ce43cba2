/**
 * One process of the job tests on a file (jobs-file.test.ts).
 *
 * `send PATH PROJECT BROWSER_RECIPIENT`: sends one notification that enqueues one job, prints
 * `sent <notification id>` once the send resolved (the 201 of a server), then waits to be killed.
 *
 * `claim PATH OWNER START_AT`: from START_AT on, claims and completes jobs until three claims in a
 * row find none, and prints the ids it claimed as one JSON line.
 *
 * `finish PATH OWNER`: claims every pending job, completes half of them and fails the other half
 * all at once (one group commit), prints `finished <ids>` once every call resolved, then waits to
 * be killed.
 */
import { createSqliteStore } from '../sqlite-store.js';

async function send(path: string, projectId: string, recipient: string): Promise<void> {
  const store = createSqliteStore({ path });
  const now = Date.now();
  const id = `ntf_killed_${now}`;
  const result = await store.createNotification({
    notification: {
      id,
      projectId,
      mode: 'live',
      recipient,
      title: 'Hello',
      body: null,
      url: null,
      icon: null,
      tag: null,
      data: null,
      ttl: 3600,
      apiKeyId: null,
      requestId: null,
      idempotencyKey: null,
      createdAt: now,
      expiresAt: now + 3_600_000,
    },
    newAttemptId: () => `att_killed_${now}`,
    idempotency: null,
    render: (created) => ({ status: 201, body: JSON.stringify({ id: created.notification.id }) }),
    jobs: (created) => [
      { kind: 'webhook', key: `endpoint-1:${created.notification.id}`, projectId, payload: { notification: id } },
    ],
  });
  if (result.kind !== 'created') throw new Error(result.kind);
  process.stdout.write(`sent ${id}\n`);
  // Held open, as a server is, until the test kills it.
  setInterval(() => {}, 60_000);
}

async function claim(path: string, owner: string, startAt: number): Promise<void> {
  const store = createSqliteStore({ path, busyTimeoutMs: 10_000 });
  while (Date.now() < startAt) {}
  const claimed: string[] = [];
  for (let idle = 0; idle < 3; ) {
    const jobs = await store.claimJobs({ kinds: ['webhook'], limit: 2, now: Date.now(), leaseMs: 600_000, owner });
    idle = jobs.length === 0 ? idle + 1 : 0;
    for (const job of jobs) {
      claimed.push(job.id);
      const now = Date.now();
      if (!(await store.completeJob({ id: job.id, owner, now, keepUntil: now + 60_000 }))) {
        throw new Error(`lost ${job.id}`);
      }
    }
  }
  await store.close();
  process.stdout.write(`${JSON.stringify(claimed)}\n`);
}

async function finish(path: string, owner: string): Promise<void> {
  const store = createSqliteStore({ path });
  const now = Date.now();
  const jobs = await store.claimJobs({ kinds: ['webhook'], limit: 100, now, leaseMs: 600_000, owner });
  const kept = await Promise.all(
    jobs.map((job, i) =>
      i % 2 === 0
        ? store.completeJob({ id: job.id, owner, now, keepUntil: now + 60_000 })
        : store.failJob({ id: job.id, owner, error: 'gave up', now, keepUntil: now + 60_000 }),
    ),
  );
  if (!kept.every(Boolean)) throw new Error('a lease was lost');
  process.stdout.write(`finished ${jobs.map((job) => job.id).join(',')}\n`);
  setInterval(() => {}, 60_000);
}

const [mode, path, a, b] = process.argv.slice(2) as [string, string, string, string];
const modes: Record<string, () => Promise<void>> = {
  send: () => send(path, a, b),
  claim: () => claim(path, a, Number(b)),
  finish: () => finish(path, a),
};
(modes[mode] ?? (() => Promise.reject(new Error(`no mode ${mode}`))))().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
