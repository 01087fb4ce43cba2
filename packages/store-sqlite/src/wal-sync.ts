import { closeSync, existsSync, fdatasync, openSync } from 'node:fs';

/**
 * Makes commits durable without blocking the event loop. The connection commits with
 * `synchronous = NORMAL` (the WAL frames reach the operating system, not yet the disk), and
 * {@link WalSync.sync} then flushes the WAL file with `fdatasync` on libuv's thread pool; a
 * write's promise settles only after a flush that began after its commit. Once that flush is
 * done the commit survives a power loss, as with `synchronous = FULL`, which would instead block
 * the event loop for the whole flush in every commit. Callers that arrive while a flush runs
 * share the next one, so a burst of commits costs one or two flushes.
 */
export interface WalSync {
  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void>;
  /** Waits for the flushes under way, then closes the file. */
  close(): Promise<void>;
}

/** Flushes a file's data to disk (`fs.fdatasync`), calling back when done. */
export type FlushFile = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

/** A {@link WalSync} for the WAL file at `walPath`; null when the file does not exist. */
export function createWalSync(walPath: string, flushFile: FlushFile = fdatasync): WalSync | null {
  if (!existsSync(walPath)) return null;
  const fd = openSync(walPath, 'r+');
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;

  const flush = (): Promise<void> => {
    const flushing = new Promise<void>((resolve, reject) => {
      flushFile(fd, (error) => (error ? reject(error) : resolve()));
    });
    running = flushing.finally(() => {
      running = null;
    });
    return running;
  };

  return {
    sync() {
      if (next) return next;
      // The flush under way may have begun before the caller's commit: wait for the one after.
      if (running) {
        next = running
          .catch(() => {})
          .then(() => {
            next = null;
            return flush();
          });
        return next;
      }
      return flush();
    },
    async close() {
      await next?.catch(() => {});
      await running?.catch(() => {});
      closeSync(fd);
    },
  };
}
