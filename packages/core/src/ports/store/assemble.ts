import type { NewJob } from '../jobs.js';
import type { Store, StoreCapabilities, StoreMethod } from '../store.js';
import { STORE_DUTIES, type StoreMethodDuties, storeMethodsWhere } from './duties.js';

/** A method of a port, as a layer sees it. */
type Method = (...args: never[]) => unknown;

/**
 * One thing every method of a port (or some of them) must also do besides its own work, such as
 * waiting for the flush to disk or waking the job runners. `wrap` returns the method with that
 * duty around it, or null to leave it as it is.
 */
export interface PortLayer<Port> {
  /** What the layer does, for a reader of the order in which layers apply. */
  readonly name: string;
  wrap(name: keyof Port & string, method: Method): Method | null;
}

/**
 * `operations` with `layers` around its methods, the first layer innermost: what the first layer
 * adds happens before what the next one adds, once the method itself has run. Returns a new
 * object; `operations` is left as it was, and properties that are not methods are carried over.
 */
export function composePort<Port extends object>(operations: Port, layers: readonly PortLayer<Port>[]): Port {
  const composed = { ...operations } as Record<string, unknown>;
  for (const [name, value] of Object.entries(operations)) {
    if (typeof value !== 'function') continue;
    let method = (value as Method).bind(operations);
    for (const layer of layers) method = layer.wrap(name as keyof Port & string, method) ?? method;
    composed[name] = method;
  }
  return composed as Port;
}

/**
 * The layer that makes each of `names` resolve only once its commit is on disk: `flush` resolves
 * when every commit made before it was called is durable (a SQLite store's WAL flush off the
 * event loop, for one).
 */
export function flushLayer<Port>(names: Iterable<keyof Port & string>, flush: () => Promise<void>): PortLayer<Port> {
  const flushed = new Set<string>(names);
  return {
    name: 'flush',
    wrap(name, method) {
      if (!flushed.has(name)) return null;
      return (async (...args: never[]) => {
        const result = await method(...args);
        await flush();
        return result;
      }) as Method;
    },
  };
}

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

/** The job kind of a webhook message's delivery (every `webhook` job duty enqueues it). */
const WEBHOOK_KIND = 'webhook';

/**
 * The layer that tells the job runners (`wakeups`) of the kinds a write enqueued, as its duty in
 * {@link STORE_DUTIES} says, once it has resolved: after the flush, so that a runner never hears
 * of a job before it is durable. `webhookMessagesRecorded` counts the webhook messages the store
 * has recorded (it rises inside the write's transaction). A write running beside one that
 * recorded messages may tell too, early: a runner then claims, finds nothing yet, and is told
 * again when that write resolves.
 */
export function jobWakeupLayer(wakeups: JobWakeups, webhookMessagesRecorded: () => number): PortLayer<Store> {
  return {
    name: 'wake job runners',
    wrap(name, method) {
      if (!(name in STORE_DUTIES)) return null;
      const duty = STORE_DUTIES[name as StoreMethod].jobs;
      switch (duty) {
        case 'none':
          return null;
        case 'listed':
          return (async (...args: never[]) => {
            const jobs = (await method(...args)) as readonly { kind: string }[];
            wakeups.notify(kindsOf(jobs));
            return jobs;
          }) as Method;
        case 'computed':
          return computedJobsWakeup(wakeups, method as (input: JobsInput) => Promise<unknown>) as Method;
        case 'webhook':
          return (async (...args: never[]) => {
            const before = webhookMessagesRecorded();
            const result = await method(...args);
            if (webhookMessagesRecorded() !== before) wakeups.notify([WEBHOOK_KIND]);
            return result;
          }) as Method;
        case 'webhook-returned':
          return (async (...args: never[]) => {
            const returned = (await method(...args)) as readonly unknown[];
            if (returned.length > 0) wakeups.notify([WEBHOOK_KIND]);
            return returned;
          }) as Method;
      }
    },
  };
}

/** The input of a write whose jobs are computed from its outcome. */
interface JobsInput {
  jobs?: (result: unknown) => NewJob[];
}

/** A write that computes its jobs, telling the kinds of the computation its transaction committed. */
function computedJobsWakeup(wakeups: JobWakeups, write: (input: JobsInput) => Promise<unknown>) {
  return (input: JobsInput): Promise<unknown> => {
    // A write without jobs (every send of a host without push, webhooks or reminders) goes straight through.
    const compute = input.jobs;
    if (!compute) return write(input);
    let kinds: string[] = [];
    return write({
      ...input,
      // A write may compute its jobs twice (a group retried); the last computation is the one committed.
      jobs: (outcome) => {
        const jobs = compute(outcome);
        kinds = kindsOf(jobs);
        return jobs;
      },
    }).then((result) => {
      wakeups.notify(kinds);
      return result;
    });
  };
}

/** What a store's writes must also do, as the store tells {@link assembleStore}. */
export interface StoreWriteDuties {
  /**
   * Resolves once every commit made before it was called is on disk; null for a store whose
   * commits are durable when they return (PostgreSQL with `synchronous_commit` on).
   */
  flush: (() => Promise<void>) | null;
  /** Durable writes whose own machinery flushes them (a group commit): the flush layer leaves them. */
  flushedByTheirOwn?: ReadonlySet<StoreMethod>;
  /** The store's job wake-ups, which its `onJobsEnqueued` subscribes to. */
  wakeups: JobWakeups;
  /** The number of webhook messages the store has recorded so far. */
  webhookMessagesRecorded: () => number;
}

/** The durable writes of the port that a flush must follow, those flushed by their own left out. */
export function durableWritesOf(flushedByTheirOwn: ReadonlySet<StoreMethod> = new Set()): StoreMethod[] {
  return storeMethodsWhere(
    (duties: StoreMethodDuties) => duties.kind === 'write' && duties.durability === 'durable',
  ).filter((name) => !flushedByTheirOwn.has(name));
}

/**
 * A store from its operations and its capabilities, with what every write must also do composed
 * around its methods in this order, each derived from {@link STORE_DUTIES}:
 *
 * 1. the operation itself, in the store's own transaction;
 * 2. **flush**: a durable write resolves once its commit is on disk (when the store has a flush);
 * 3. **wake job runners**: the kinds the write enqueued are told to `onJobsEnqueued`'s listeners.
 *
 * The metrics' timing, when an instance has metrics, goes around all of it (`createTidings`).
 */
export function assembleStore<Capabilities extends StoreCapabilities>(
  operations: Omit<Store, 'capabilities' | 'onJobsEnqueued'>,
  duties: StoreWriteDuties,
  capabilities: Capabilities,
): Store & { readonly capabilities: Capabilities } {
  const layers: PortLayer<Store>[] = [];
  if (duties.flush !== null) layers.push(flushLayer(durableWritesOf(duties.flushedByTheirOwn), duties.flush));
  layers.push(jobWakeupLayer(duties.wakeups, duties.webhookMessagesRecorded));
  const store: Store & { readonly capabilities: Capabilities } = {
    ...operations,
    onJobsEnqueued: duties.wakeups.subscribe,
    capabilities,
  };
  return composePort(store, layers as readonly PortLayer<typeof store>[]);
}
