import { type Hub, type Limiter, TidingsError } from '@tidings/core';
import type { WhenRedisUnreachable } from '@tidings/redis';

/**
 * How `tidings serve` reaches Redis: `--redis URL` (or `TIDINGS_REDIS_URL`), or a Redis Cluster
 * with `--redis-cluster host:port,host:port` (or `TIDINGS_REDIS_CLUSTER`).
 */
export interface ServeRedisOptions {
  url?: string;
  /** The cluster's nodes, `host:port,host:port`; some of them are enough to find the others. */
  cluster?: string;
  /** @default 'fallback' */
  whenUnreachable?: WhenRedisUnreachable;
}

/** The Redis limiter and hub of one server, and their lifecycle. */
export interface RedisPorts {
  limiter: Limiter;
  hub: Hub;
  close(): Promise<void>;
}

/** How long the server waits for Redis at start before it serves anyway (and falls back meanwhile). */
const READY_WAIT_MS = 5_000;

/**
 * Connects the shared limiter and the cross-instance hub. The server starts once both are
 * connected, or after a few seconds without Redis: a send depends only on the store, so a
 * server that cannot reach Redis still serves (the limiter falls back or refuses, as told).
 */
export async function openRedisPorts(options: ServeRedisOptions): Promise<RedisPorts> {
  // Loaded only when asked for: the Redis client is a large module, and every command of the
  // CLI loads this file.
  const { createRedisHub, createRedisLimiter, parseClusterNodes } = await import('@tidings/redis');
  const whenUnreachable = options.whenUnreachable ?? 'fallback';
  let limiter: ReturnType<typeof createRedisLimiter>;
  let hub: ReturnType<typeof createRedisHub>;
  if (options.cluster !== undefined) {
    let nodes: string[];
    try {
      nodes = parseClusterNodes(options.cluster);
    } catch (error) {
      throw new TidingsError('VALIDATION_FAILED', `--redis-cluster: ${(error as Error).message}`);
    }
    limiter = createRedisLimiter({ cluster: nodes, whenUnreachable });
    hub = createRedisHub({ cluster: nodes });
  } else {
    let url: URL;
    try {
      url = new URL(options.url ?? '');
    } catch {
      throw new TidingsError('VALIDATION_FAILED', '--redis must be a redis:// or rediss:// URL');
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      throw new TidingsError('VALIDATION_FAILED', `--redis must be a redis:// or rediss:// URL, not ${url.protocol}`);
    }
    limiter = createRedisLimiter({ url: options.url, whenUnreachable });
    hub = createRedisHub({ url: options.url });
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all([limiter.ready(), hub.ready()]),
    new Promise((resolve) => {
      timer = setTimeout(resolve, READY_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  return {
    limiter,
    hub,
    async close() {
      await Promise.all([limiter.close(), hub.close()]);
    },
  };
}
