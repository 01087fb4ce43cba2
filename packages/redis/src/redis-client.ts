import { createClient, ErrorReply } from '@redis/client';
import type { Logger } from '@tidings/core';

/**
 * What the limiter and the hub need of a node-redis client, so that an embedder may pass the
 * client of `redis` or of `@redis/client`, of any version from 5 on, that they already hold.
 */
export interface RedisCommandClient {
  /** True while the connection is up and commands are answered. */
  readonly isReady: boolean;
  sendCommand(args: string[]): Promise<unknown>;
}

function newClient(url: string, name: string) {
  return createClient({
    url,
    name,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 2_000,
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2_000),
    },
  });
}

/** A node-redis client as this package makes them. */
export type NodeRedisClient = ReturnType<typeof newClient>;

/** A client this package made from a URL, with its lifecycle. */
export interface OwnedRedisClient {
  client: NodeRedisClient;
  /** Resolves once the client is connected for the first time. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Connects a node-redis client that fails fast while Redis is out of reach: no offline queue
 * (a command rejects at once instead of waiting for a reconnect, so a request is never held
 * behind a dead connection), reconnecting with a capped backoff, and errors logged once per
 * outage rather than once per retry.
 */
export function connectRedis(url: string, options: { name: string; logger: Logger }): OwnedRedisClient {
  const client = newClient(url, options.name);
  let down = false;
  client.on('error', (error: unknown) => {
    if (down) return;
    down = true;
    options.logger.warn('redis connection lost', { client: options.name, error: String(error) });
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    options.logger.info('redis connection back', { client: options.name });
  });
  const ready = client.connect().then(
    () => undefined,
    (error: unknown) => {
      options.logger.error('redis connection failed for good', { client: options.name, error: String(error) });
    },
  );
  return {
    client,
    ready,
    async close() {
      if (!client.isOpen) return;
      try {
        await client.close();
      } catch {
        client.destroy();
      }
    },
  };
}

/** Error replies that mean "Redis cannot serve now", not "this command is wrong". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|OOM|NOREPLICAS)\b/;

/**
 * Whether a failed command failed because Redis is out of reach (a closed or timed-out
 * connection, a server loading or failing over) rather than because of a bug: only the former
 * may be answered by the fallback.
 */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof ErrorReply || isErrorReplyLike(error)) return TRANSIENT_REPLY.test(error.message);
  return true;
}

/** An error reply of another copy of node-redis (the embedder's `redis`), recognised by name. */
function isErrorReplyLike(error: unknown): error is Error {
  return error instanceof Error && error.constructor.name === 'ErrorReply';
}

/** Rejects with a timeout error when `promise` takes longer than `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
