import { randomBytes } from 'node:crypto';
import {
  createConsoleLogger,
  createMemoryLimiter,
  type LimitDecision,
  type Limiter,
  type LimitScope,
  type Logger,
  type ScopeState,
} from '@tidings/core';
import {
  clusterCommandClient,
  connectRedis,
  connectRedisCluster,
  isUnreachable,
  type OwnedRedisClient,
  parseClusterNodes,
  type RedisCommandClient,
  withTimeout,
} from './redis-client.js';
import { SLIDING_WINDOW_SCRIPT, SLIDING_WINDOW_SHA } from './sliding-window-script.js';

/** What a limiter does while Redis is out of reach. */
export type WhenRedisUnreachable = 'fallback' | 'refuse';

/** Options of {@link createRedisLimiter}: a `url` to connect to, or a `client` already connected. */
export interface RedisLimiterOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`; the limiter connects and closes it. */
  url?: string;
  /** A connected node-redis client (`redis` or `@redis/client`); the limiter neither connects nor closes it. */
  client?: RedisCommandClient;
  /**
   * The nodes of a Redis Cluster, `host:port` each (or `'h1:p1,h2:p2'`), instead of `url`: the
   * limiter connects to the cluster, and sends each decision to the node of its scopes' slot.
   */
  cluster?: string | readonly string[];
  /**
   * Prepended to every key. Every instance of one deployment must use the same; it must not
   * contain `{` or `}`, which Redis Cluster reads as a hash tag. @default 'tidings:limit:'
   */
  prefix?: string;
  /**
   * While Redis is out of reach: `fallback` counts in this process's memory (each instance then
   * admits up to every limit on its own, until Redis is back), `refuse` answers every limited
   * request with 503 and Retry-After. @default 'fallback'
   */
  whenUnreachable?: WhenRedisUnreachable;
  /** The Retry-After of a refusal while Redis is out of reach (`refuse`). @default 1000 */
  unreachableRetryAfterMs?: number;
  /** A decision Redis has not answered within this long counts as Redis out of reach. @default 1000 */
  commandTimeoutMs?: number;
  /**
   * Whose clock decides: `redis` (Redis's TIME, one clock for every instance) or `caller` (the
   * `now` each consume is given). `caller` is for simulations that drive time themselves.
   * @default 'redis'
   */
  clock?: 'redis' | 'caller';
  /** Where outages and recoveries are reported. @default createConsoleLogger() */
  logger?: Logger;
}

/** At most this many consumes in one call of the script, so that one call stays short for Redis. */
const MAX_CONSUMES_PER_CALL = 100;

/** A consume waiting for its turn's call of the script. */
interface Waiting {
  scopes: readonly LimitScope[];
  now: number;
  resolve(decision: LimitDecision): void;
  reject(error: unknown): void;
}

/** A {@link Limiter} whose counts live in Redis, shared by every instance. */
export interface RedisLimiter extends Limiter {
  /** Resolves once the limiter's own connection is up (at once for a client passed in). */
  ready(): Promise<void>;
}

/**
 * Creates the exact sliding-window limiter of many instances: every scope of a consume is
 * checked and only then consumed, in one Lua script that Redis runs atomically, so no span of a
 * window ever admits more than the limit across all instances, and a refusal consumes nothing.
 * The consumes of one turn with the same scopes share one call of the script (up to 100).
 *
 * Scopes of one group (a key, its project and its account) share a Redis Cluster hash tag, so
 * the script's keys always lie on one slot.
 */
export function createRedisLimiter(options: RedisLimiterOptions): RedisLimiter {
  const prefix = options.prefix ?? 'tidings:limit:';
  if (/[{}]/.test(prefix)) throw new TypeError(`The limiter's prefix must not contain { or }, got ${prefix}`);
  const whenUnreachable = options.whenUnreachable ?? 'fallback';
  if (whenUnreachable !== 'fallback' && whenUnreachable !== 'refuse') {
    throw new TypeError(`whenUnreachable must be 'fallback' or 'refuse', got ${String(whenUnreachable)}`);
  }
  const clock = options.clock ?? 'redis';
  if (clock !== 'redis' && clock !== 'caller') throw new TypeError(`clock must be 'redis' or 'caller'`);
  const retryAfterMs = positive('unreachableRetryAfterMs', options.unreachableRetryAfterMs ?? 1_000);
  const timeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs ?? 1_000);
  const logger = options.logger ?? createConsoleLogger();

  let owned: Pick<OwnedRedisClient, 'ready' | 'close'> | null = null;
  let client: RedisCommandClient;
  if ([options.client, options.url, options.cluster].filter((given) => given !== undefined).length > 1) {
    throw new TypeError('createRedisLimiter takes one of url, client and cluster');
  }
  if (options.client) {
    client = options.client;
  } else if (options.cluster !== undefined) {
    const cluster = connectRedisCluster(parseClusterNodes(options.cluster), { name: 'tidings-limiter', logger });
    owned = cluster;
    client = clusterCommandClient(cluster.cluster);
  } else if (options.url) {
    const single = connectRedis(options.url, { name: 'tidings-limiter', logger });
    owned = single;
    client = single.client as unknown as RedisCommandClient;
  } else {
    throw new TypeError('createRedisLimiter needs a url, a client or a cluster');
  }

  const fallback = createMemoryLimiter();
  // Members must be unique across instances and requests: this instance's tag and a counter.
  const instanceTag = randomBytes(6).toString('base64url');
  let counter = 0;
  let outage = false;

  function keyOf(scope: LimitScope): string {
    return scope.group === undefined ? `${prefix}{${scope.id}}` : `${prefix}{${scope.group}}:${scope.id}`;
  }

  async function run(scopes: readonly LimitScope[], nows: readonly number[]): Promise<unknown> {
    const keys = scopes.map(keyOf);
    const args = [
      clock,
      String(nows.length),
      `${instanceTag}:${counter++}`,
      ...nows.map((now) => String(Math.trunc(now))),
    ];
    for (const scope of scopes) args.push(String(scope.limit), String(scope.windowMs));
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await client.sendCommand(['EVALSHA', SLIDING_WINDOW_SHA, ...tail]);
    } catch (error) {
      // The script cache is empty after a restart or a failover: EVAL sends it and caches it.
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      return client.sendCommand(['EVAL', SLIDING_WINDOW_SCRIPT, ...tail]);
    }
  }

  // The consumes of one turn with the same scopes (the requests of one API key) go to Redis in
  // one call of the script, which decides them one after the other as it would one by one.
  let waiting = new Map<string, Waiting[]>();
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    const groups = waiting;
    waiting = new Map();
    for (const group of groups.values()) {
      for (let from = 0; from < group.length; from += MAX_CONSUMES_PER_CALL) {
        void decide(group.slice(from, from + MAX_CONSUMES_PER_CALL));
      }
    }
  }

  async function decide(group: Waiting[]): Promise<void> {
    const scopes = group[0]!.scopes;
    let reply: unknown;
    try {
      reply = await withTimeout(
        run(
          scopes,
          group.map((one) => one.now),
        ),
        timeoutMs,
      );
    } catch (error) {
      for (const one of group) {
        if (isUnreachable(error)) unreachable(one.scopes, one.now, error).then(one.resolve, one.reject);
        else one.reject(error);
      }
      return;
    }
    if (outage) {
      outage = false;
      logger.info('rate limits reach redis again');
    }
    const width = 2 + 2 * scopes.length;
    if (!Array.isArray(reply) || reply.length !== width * group.length) {
      const error = new Error(`Unexpected reply of the limiter script: ${JSON.stringify(reply)}`);
      for (const one of group) one.reject(error);
      return;
    }
    for (const [j, one] of group.entries()) {
      try {
        one.resolve(decode(scopes, reply.slice(j * width, (j + 1) * width)));
      } catch (error) {
        one.reject(error);
      }
    }
  }

  function unreachable(scopes: readonly LimitScope[], now: number, error: unknown): Promise<LimitDecision> {
    if (!outage) {
      outage = true;
      logger.warn('rate limits cannot reach redis', {
        fallback: whenUnreachable === 'fallback' ? 'in-process limiter' : '503 Service Unavailable',
        error: String(error),
      });
    }
    if (whenUnreachable === 'fallback') return fallback.consume(scopes, now);
    return Promise.resolve({ allowed: false, unavailable: true, retryAfterMs, scopes: [] });
  }

  return {
    async consume(scopes, now) {
      checkScopes(scopes, now);
      if (scopes.length === 0) return { allowed: true, scopes: [] };
      if (!client.isReady) return unreachable(scopes, now, 'not connected');
      return new Promise<LimitDecision>((resolve, reject) => {
        const signature = scopes.map((scope) => `${keyOf(scope)} ${scope.limit} ${scope.windowMs}`).join('\n');
        const group = waiting.get(signature);
        if (group) group.push({ scopes, now, resolve, reject });
        else waiting.set(signature, [{ scopes, now, resolve, reject }]);
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    ready: () => owned?.ready ?? Promise.resolve(),
    async close() {
      await fallback.close();
      await owned?.close();
    },
  };
}

function decode(scopes: readonly LimitScope[], reply: unknown): LimitDecision {
  if (!Array.isArray(reply) || reply.length !== 2 + 2 * scopes.length) {
    throw new Error(`Unexpected reply of the limiter script: ${JSON.stringify(reply)}`);
  }
  const numbers = reply.map(Number);
  const states: ScopeState[] = scopes.map((scope, i) => ({
    name: scope.name,
    limit: scope.limit,
    windowMs: scope.windowMs,
    remaining: Math.max(0, scope.limit - numbers[2 + 2 * i]!),
    resetMs: numbers[3 + 2 * i]!,
  }));
  return numbers[0] === 1
    ? { allowed: true, scopes: states }
    : { allowed: false, retryAfterMs: numbers[1]!, scopes: states };
}

/** The same checks as the in-process limiter: misuse throws before anything reaches Redis. */
function checkScopes(scopes: readonly LimitScope[], now: number): void {
  if (!Number.isFinite(now)) throw new TypeError(`now must be a finite number, got ${now}`);
  const seen = new Set<string>();
  for (const scope of scopes) {
    if (seen.has(scope.id)) throw new TypeError(`Scope ${scope.id} appears twice in one consume`);
    seen.add(scope.id);
    if (!(Number.isInteger(scope.limit) && scope.limit > 0)) {
      throw new TypeError(`Scope ${scope.id}: limit must be a positive integer, got ${scope.limit}`);
    }
    if (!(Number.isInteger(scope.windowMs) && scope.windowMs > 0)) {
      throw new TypeError(`Scope ${scope.id}: windowMs must be a positive whole number, got ${scope.windowMs}`);
    }
  }
}

function positive(name: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) throw new TypeError(`${name} must be a positive number, got ${value}`);
  return value;
}
