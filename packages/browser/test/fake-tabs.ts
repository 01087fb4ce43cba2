import type { ElectionChannel, ElectionLocks } from '../src/tab-election.js';

const abortError = () => new DOMException('aborted', 'AbortError');

interface LockRequest {
  callback: () => Promise<void>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The Web Locks API over memory: per name a holder and a queue, `signal` to withdraw, `steal` to preempt. */
export function fakeLocks(): ElectionLocks {
  const locks = new Map<string, { held: LockRequest | null; queue: LockRequest[] }>();
  const grant = (lock: { held: LockRequest | null; queue: LockRequest[] }, entry: LockRequest) => {
    lock.held = entry;
    entry.callback().then((value) => {
      if (lock.held !== entry) return; // stolen meanwhile: its request was rejected already
      lock.held = null;
      entry.resolve(value);
      const next = lock.queue.shift();
      if (next) grant(lock, next);
    });
  };
  return {
    request(name, options, callback) {
      const lock = locks.get(name) ?? { held: null, queue: [] };
      locks.set(name, lock);
      return new Promise((resolve, reject) => {
        const entry = { callback, resolve, reject };
        if (options.steal) {
          lock.held?.reject(abortError());
          grant(lock, entry);
        } else if (!lock.held && lock.queue.length === 0) grant(lock, entry);
        else {
          lock.queue.push(entry);
          options.signal?.addEventListener('abort', () => {
            if (!lock.queue.includes(entry)) return;
            lock.queue = lock.queue.filter((other) => other !== entry);
            reject(abortError());
          });
        }
      });
    },
  };
}

/**
 * `BroadcastChannel` over memory: a message reaches every other open channel of its name, cloned,
 * in a later task, as in a browser.
 */
export function fakeBroadcastChannel(): new (name: string) => ElectionChannel {
  const open = new Map<string, Set<ElectionChannel>>();
  return class implements ElectionChannel {
    onmessage: ((event: { data: unknown }) => void) | null = null;
    readonly #peers: Set<ElectionChannel>;

    constructor(name: string) {
      this.#peers = open.get(name) ?? new Set();
      open.set(name, this.#peers);
      this.#peers.add(this);
    }

    postMessage(message: unknown): void {
      for (const peer of this.#peers) {
        if (peer === this) continue;
        const data = structuredClone(message);
        setTimeout(() => this.#peers.has(peer) && peer.onmessage?.({ data }), 0);
      }
    }

    close(): void {
      this.#peers.delete(this);
    }
  };
}
