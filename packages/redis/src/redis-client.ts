import { createClient, createCluster, ErrorReply } from '@redis/client';
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

/**
 * node-redis gives every command a 5 s `AbortSignal.timeout` by default. It bounds only the time
 * a command waits to be written, not its answer, yet its timer still fires seconds after the
 * command was answered and builds a `DOMException`: with two commands a send (the limiter's and
 * the publish), that was about 3% of an instance's CPU. With no offline queue a command is
 * refused while the connection is down and waits to be written only while the socket drains, and
 * every command this package waits for has a timeout of its own (`commandTimeoutMs`,
 * `publishTimeoutMs`, `subscribeTimeoutMs`), so the default one is off. A
 * cluster passes its command options with each command to the node of its slot; the commands it
 * sends on its own to rediscover the topology keep node-redis's timer.
 */
const COMMAND_OPTIONS = { timeout: 0 };

function newClient(url: string, name: string) {
  return createClient({
    url,
    name,
    disableOfflineQueue: true,
    commandOptions: COMMAND_OPTIONS,
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

/**
 * Parses `--redis-cluster`'s list: `host:port,host:port` (a `redis://` or `rediss://` URL per
 * node is accepted too). Throws on an empty list or a node without a port.
 */
export function parseClusterNodes(list: string | readonly string[]): string[] {
  const nodes = (typeof list === 'string' ? list.split(',') : [...list]).map((node) => node.trim()).filter(Boolean);
  if (nodes.length === 0) throw new TypeError('a Redis Cluster needs at least one host:port');
  return nodes.map((node) => {
    const url = /^rediss?:\/\//.test(node) ? node : `redis://${node}`;
    const parsed = new URL(url);
    if (!parsed.hostname || !parsed.port) throw new TypeError(`a cluster node is host:port, got ${node}`);
    return url;
  });
}

function newCluster(nodes: readonly string[], name: string) {
  return createCluster({
    rootNodes: parseClusterNodes(nodes).map((url) => ({ url })),
    commandOptions: COMMAND_OPTIONS,
    defaults: {
      name,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 2_000,
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
      },
    },
  });
}

/** A node-redis cluster client as this package makes them. */
export type NodeRedisCluster = ReturnType<typeof newCluster>;

/** A cluster client this package made from a list of nodes, with its lifecycle. */
export interface OwnedRedisCluster {
  cluster: NodeRedisCluster;
  /** Resolves once the cluster's topology is known and its masters connected, for the first time. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Connects a node-redis cluster client that fails fast, as {@link connectRedis} does a client. */
export function connectRedisCluster(
  nodes: readonly string[],
  options: { name: string; logger: Logger },
): OwnedRedisCluster {
  const cluster = newCluster(nodes, options.name);
  let down = false;
  cluster.on('error', (error: unknown) => {
    if (down) return;
    down = true;
    options.logger.warn('redis cluster connection lost', { client: options.name, error: String(error) });
  });
  cluster.on('node-error', (error: unknown) => {
    if (down) return;
    down = true;
    options.logger.warn('redis cluster node connection lost', { client: options.name, error: String(error) });
  });
  cluster.on('node-ready', () => {
    if (!down) return;
    down = false;
    options.logger.info('redis cluster connection back', { client: options.name });
  });
  const ready = cluster.connect().then(
    () => undefined,
    (error: unknown) => {
      options.logger.error('redis cluster connection failed for good', { client: options.name, error: String(error) });
    },
  );
  return {
    cluster,
    ready,
    async close() {
      try {
        await cluster.close();
      } catch {
        cluster.destroy();
      }
    },
  };
}

/**
 * A cluster client as the limiter speaks to Redis: its commands are scripts whose keys share a
 * hash tag, routed by their first key (`EVALSHA sha numkeys key …`).
 */
export function clusterCommandClient(cluster: NodeRedisCluster): RedisCommandClient {
  return {
    get isReady() {
      return cluster.isReady;
    },
    sendCommand(args: string[]) {
      const [command, , numKeys, firstKey] = args;
      const keyed = (command === 'EVALSHA' || command === 'EVAL') && Number(numKeys) > 0;
      return cluster.sendCommand(keyed ? firstKey : undefined, false, args);
    },
  };
}
