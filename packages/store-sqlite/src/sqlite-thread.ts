import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Where a thread loads better-sqlite3 from: the copy this module uses. A CommonJS bundle of
 * this module has no `import.meta.url`; its thread then resolves the name as any require would.
 */
function driverPath(): string {
  try {
    return createRequire(import.meta.url).resolve('better-sqlite3');
  } catch {
    return 'better-sqlite3';
  }
}

/** A thread with a connection of its own (the checkpoints', the request log's). */
export interface SqliteThread {
  worker: Worker;
  /** Resolves once the thread has exited, however it ended. */
  exited: Promise<void>;
  /**
   * Sends the thread `'close'` (messages are taken in order: those sent before are done first)
   * and resolves once it has exited. Waiting keeps the process alive, or a process with nothing
   * else to do would exit before the caller's close resolves.
   */
  close(): Promise<void>;
}

/**
 * Starts a thread running `source`: CommonJS, given the driver's path as `workerData.driver`
 * beside `data`, so that it runs the same from sources and from the build. Idle, it keeps no
 * process alive (`worker.ref()` while the caller waits for it).
 */
export function startSqliteThread(source: string, data: Record<string, unknown>): SqliteThread {
  const worker = new Worker(source, { eval: true, workerData: { driver: driverPath(), ...data } });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let closing: Promise<void> | null = null;
  return {
    worker,
    exited,
    close() {
      closing ??= (async () => {
        worker.ref();
        worker.postMessage('close');
        await exited;
      })();
      return closing;
    },
  };
}
