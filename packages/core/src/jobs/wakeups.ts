import type { NewJob } from '../ports/jobs.js';
import { storeMethodsWhere } from '../ports/store/duties.js';
import type { Store } from '../ports/store.js';
import { WEBHOOK_JOB_KIND } from '../webhooks/events.js';

/** The listeners of a store's `onJobsEnqueued` (the Store port), for a store to keep. */
export interface JobWakeups {
  /** What the store's `onJobsEnqueued` does. */
  subscribe(listener: (kinds: string[]) => void): () => void;
  /** Tells every listener, once the jobs are durable; a listener that throws is ignored. */
  notify(kinds: string[]): void;
}

/** The listeners of one store. */
export function createJobWakeups(): JobWakeups {
  const listeners = new Set<(kinds: string[]) => void>();
  return {
    subscribe(listener) {
      const own = (kinds: string[]) => listener(kinds);
      listeners.add(own);
      return () => listeners.delete(own);
    },
    notify(kinds) {
      if (kinds.length === 0) return;
      for (const listener of listeners) {
        try {
          listener(kinds);
        } catch {
          // A listener's error is its own: the write it follows has succeeded.
        }
      }
    },
  };
}

/** The kinds of a list of jobs, each once. */
export function kindsOf(jobs: readonly { kind: string }[]): string[] {
  return [...new Set(jobs.map((job) => job.kind))];
}

/** The writes of the Store port that enqueue the jobs their input lists, and return them. */
const LISTING_WRITES = storeMethodsWhere((duties) => duties.jobs === 'listed');
/** The writes of the Store port that enqueue the jobs their input's `jobs` computes. */
const COMPUTING_WRITES = storeMethodsWhere((duties) => duties.jobs === 'computed');

/**
 * Makes the writes of `store` that enqueue jobs tell `wakeups` once they resolved, with the kinds
 * they enqueued. Apply it outermost, after whatever makes a write wait for its flush, so that a
 * runner never hears of a job before it is durable.
 */
export function notifyJobsAfterWrites(store: Store, wakeups: JobWakeups): void {
  for (const name of LISTING_WRITES) {
    const write = (store[name] as (input: unknown) => Promise<readonly { kind: string }[]>).bind(store);
    (store as unknown as Record<string, unknown>)[name] = async (input: unknown) => {
      const jobs = await write(input);
      wakeups.notify(kindsOf(jobs));
      return jobs;
    };
  }
  for (const name of COMPUTING_WRITES) {
    type Write = (input: { jobs?: (result: unknown) => NewJob[] }) => Promise<unknown>;
    const write = (store[name] as Write).bind(store);
    const withJobs = async (
      input: { jobs?: (result: unknown) => NewJob[] },
      compute: (result: unknown) => NewJob[],
    ) => {
      let kinds: string[] = [];
      // A write may compute its jobs twice (a group retried); the last computation is the one committed.
      const result = await write({
        ...input,
        jobs: (outcome: unknown) => {
          const jobs = compute(outcome);
          kinds = kindsOf(jobs);
          return jobs;
        },
      });
      wakeups.notify(kinds);
      return result;
    };
    // A write without jobs (every send of a host without webhooks) goes straight through.
    const wrapped: Write = (input) => (input.jobs ? withJobs(input, input.jobs) : write(input));
    (store as unknown as Record<string, unknown>)[name] = wrapped;
  }
}

/** The writes of the Store port that may record webhook messages, with a `webhook` job each. */
const RECORDING_WRITES = storeMethodsWhere((duties) => duties.jobs === 'webhook');
/** The writes of the Store port that make webhook messages pending again, with a job each, and return them. */
const RETURNING_WRITES = storeMethodsWhere((duties) => duties.jobs === 'webhook-returned');

/**
 * Makes the writes of `store` that may record webhook messages tell `wakeups` of the `webhook`
 * kind once they resolved, when a message was recorded since they started: `recorded` counts the
 * messages the store has recorded (it rises inside the write's transaction). A write that makes
 * messages pending again records none: it tells whenever it returns some. Apply it outermost, as
 * {@link notifyJobsAfterWrites}. A write running beside one that recorded may tell too, early:
 * a runner then claims and finds nothing yet, and is told again when that write resolves.
 */
export function notifyWebhookJobsAfterWrites(store: Store, wakeups: JobWakeups, recorded: () => number): void {
  for (const name of RECORDING_WRITES) {
    const write = (store[name] as (input: unknown) => Promise<unknown>).bind(store);
    (store as unknown as Record<string, unknown>)[name] = async (input: unknown) => {
      const before = recorded();
      const result = await write(input);
      if (recorded() !== before) wakeups.notify([WEBHOOK_JOB_KIND]);
      return result;
    };
  }
  for (const name of RETURNING_WRITES) {
    const write = (store[name] as (input: unknown) => Promise<readonly unknown[]>).bind(store);
    (store as unknown as Record<string, unknown>)[name] = async (input: unknown) => {
      const returned = await write(input);
      if (returned.length > 0) wakeups.notify([WEBHOOK_JOB_KIND]);
      return returned;
    };
  }
}
