import pg from 'pg';

/**
 * node-postgres's deprecation warnings: each names the major version that drops what it warns of
 * (`… will be removed in pg@9.0`, `… in the next major version of pg`), so a warning printed
 * today is a failure on the next major. Node prints each one once per process.
 */
export function isPgDeprecation(warning: Pick<Error, 'name' | 'message'>): boolean {
  return warning.name === 'DeprecationWarning' && /\bpg@\d|\bversion of pg\b/.test(warning.message);
}

/** The fields of a node-postgres client that tell whether it is busy (pg 8). */
interface ClientState {
  pipeline?: boolean;
  _getActiveQuery?: () => unknown;
  _queryQueue?: unknown[];
}

/**
 * Whether `client` is answering a statement and does not pipeline, so that a statement given now
 * would wait in the queue that node-postgres 9 removes. pg 8 warns only once a second one waits,
 * so this is the stricter check.
 */
export function busyWithoutPipelining(client: ClientState): boolean {
  if (client.pipeline === true || typeof client._getActiveQuery !== 'function') return false;
  return client._getActiveQuery() != null || (client._queryQueue?.length ?? 0) > 0;
}

const watchers = new Set<(message: string) => void>();
const patched = Symbol.for('tidings.test.pgQueryWatched');

/**
 * Has every node-postgres client of the process tell the watchers of a statement given while it
 * is busy without pipelining (once per process: clients of every pool share the prototype).
 */
function watchBusyClients(): void {
  const prototype = pg.Client.prototype as unknown as Record<symbol | string, unknown>;
  if (prototype[patched]) return;
  prototype[patched] = true;
  const query = prototype.query as (...args: unknown[]) => unknown;
  prototype.query = function (this: ClientState, ...args: unknown[]) {
    if (watchers.size > 0 && busyWithoutPipelining(this)) {
      const at = new Error().stack?.split('\n').slice(2, 8).join('\n') ?? '';
      for (const watcher of watchers) watcher(`a statement given to a busy client without pipelining\n${at}`);
    }
    return query.apply(this, args);
  };
}

/**
 * Collects, from now on, the pg deprecation warnings the process emits and the statements given to
 * a busy client that does not pipeline; `stop()` ends the watch and returns what it saw.
 */
export function watchPgDeprecations(): { stop(): string[] } {
  const seen: string[] = [];
  const onWarning = (warning: Error) => {
    if (isPgDeprecation(warning)) seen.push(warning.message);
  };
  const onBusy = (message: string) => seen.push(message);
  process.on('warning', onWarning);
  watchBusyClients();
  watchers.add(onBusy);
  return {
    stop() {
      process.off('warning', onWarning);
      watchers.delete(onBusy);
      return seen;
    },
  };
}
