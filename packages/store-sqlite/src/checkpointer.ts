import { startSqliteThread } from './sqlite-thread.js';

/**
 * Copies the WAL back into the database file from a thread of its own, so that the server's
 * thread, which commits, does not. SQLite's automatic checkpoint runs inside the commit that
 * crosses its threshold: it copies every page written since the last one and syncs the file
 * twice, and under a steady stream of sends that is about a quarter of what a send's write
 * costs, in stalls of several milliseconds. Here a passive checkpoint (it never waits for
 * readers or writers) runs every `intervalMs`: each one syncs the files twice whatever it copies,
 * so it does not run more often under a heavier load, only copies more.
 *
 * The committing connection keeps a higher automatic threshold as a backstop: under a write
 * load that never leaves a moment in which everything has been copied, the WAL is restarted by
 * that connection's checkpoint, which then only copies what this thread has not yet.
 *
 * On close the thread makes a last pass before it lets go: the last connection to close a WAL
 * database copies what is left into the file, with its syncs, then deletes the WAL file, and that
 * is the committing connection, on the event loop (bench/NOTES.md#figures-behind-the-design has what
 * that cost at a shutdown). After the last pass it finds nothing to copy and an empty file to delete.
 */
export interface Checkpointer {
  /** Stops the thread once its current checkpoint is done; resolves when it has closed its connection. */
  close(): Promise<void>;
}

/** The thread's code (sqlite-thread.ts). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
let timer = null;
let closed = false;
function pass() {
  timer = null;
  if (closed) return;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A failed pass is retried at the next one; the committing connection's threshold still holds.
  }
  timer = setTimeout(pass, workerData.intervalMs);
}
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  closed = true;
  if (timer !== null) clearTimeout(timer);
  // A last pass copies what the final writes left in the WAL and empties the file: the
  // committing connection, closed after this one and then the last, would otherwise copy it and
  // delete a WAL of many megabytes inside its close, on the loop. The store writes nothing any
  // more; if another process (the CLI) is reading or writing, TRUNCATE, with the busy timeout
  // set to none, gives up at once and the close does what it always did.
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // The committing connection's close then copies what is left, as it would without a thread.
  }
  db.close();
  parentPort.close();
});
timer = setTimeout(pass, workerData.intervalMs);
`;

/** Starts the checkpoint thread of the database at `path` (a file in WAL mode). */
export function startCheckpointer(path: string, options: { intervalMs: number }): Checkpointer {
  const thread = startSqliteThread(WORKER_SOURCE, { path, intervalMs: options.intervalMs });
  // A failure of the thread is not the server's: the committing connection's own threshold
  // still bounds the WAL.
  thread.worker.on('error', () => {});
  return { close: thread.close };
}
