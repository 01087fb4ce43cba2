import type { Logger } from '@tidings/core';
import { connectRedis, connectRedisCluster, type OwnedRedisClient } from './redis-client.js';

/** Called with each message of a subscribed channel. */
export type ChannelListener = (message: string, channel: string) => void;

/**
 * What the hub needs of Redis pub/sub: one Redis (`PUBLISH`/`SUBSCRIBE` on two connections) or a
 * Redis Cluster (sharded pub/sub, `SPUBLISH`/`SSUBSCRIBE`, on the node that serves each channel's
 * slot).
 */
export interface PubSubTransport {
  /** Resolves once the connections are up (or failed for good, which is logged). */
  readonly ready: Promise<void>;
  /** True while a publish can be sent. */
  readonly canPublish: boolean;
  /** True while every subscribing connection is up (false from a break until it is back). */
  readonly canReceive: boolean;
  publish(channel: string, message: string): Promise<unknown>;
  /** Resolves once Redis confirmed every subscription; rejects when the connection breaks first. */
  subscribe(channels: string[], listener: ChannelListener): Promise<void>;
  unsubscribe(channels: string[], listener: ChannelListener): Promise<void>;
  /**
   * The channels node-redis holds subscriptions of, which it renews by itself after a break;
   * null when it cannot tell (a cluster): the hub then asks again for every channel it needs.
   */
  held(): Set<string> | null;
  /** Calls `back` each time the receiving side came back after a break (not at the start). */
  onReconnect(back: () => void): void;
  close(): Promise<void>;
}

/** node-redis's name of plain (not pattern, not sharded) channels. */
const PUBSUB_CHANNELS = 'CHANNELS' as const;

/** One Redis: one connection publishes, one subscribes. */
export function singleNodeTransport(url: string, instanceId: string, logger: Logger): PubSubTransport {
  const publisher: OwnedRedisClient = connectRedis(url, { name: `tidings-hub:${instanceId}`, logger });
  const subscriber: OwnedRedisClient = connectRedis(url, { name: `tidings-hub-sub:${instanceId}`, logger });
  const backListeners: Array<() => void> = [];
  // The first `ready` is the start; every later one follows a break. node-redis subscribes
  // again to the channels it held before it reports `ready`.
  let connectedOnce = false;
  subscriber.client.on('ready', () => {
    if (!connectedOnce) {
      connectedOnce = true;
      return;
    }
    for (const back of backListeners) back();
  });
  return {
    ready: Promise.all([publisher.ready, subscriber.ready]).then(() => undefined),
    get canPublish() {
      return publisher.client.isReady;
    },
    get canReceive() {
      return subscriber.client.isReady;
    },
    publish: (channel, message) => publisher.client.publish(channel, message),
    subscribe: (channels, listener) => subscriber.client.subscribe(channels, listener),
    unsubscribe: (channels, listener) => subscriber.client.unsubscribe(channels, listener),
    held: () => new Set(subscriber.client.getPubSubListeners(PUBSUB_CHANNELS).keys()),
    onReconnect(back) {
      backListeners.push(back);
    },
    async close() {
      await Promise.all([publisher.close(), subscriber.close()]);
    },
  };
}

/**
 * A Redis Cluster through node-redis's cluster client: sharded pub/sub, so that a message goes
 * only to the nodes of its channel's slot instead of every node of the cluster. node-redis opens
 * one subscribing connection per master that serves a subscribed channel, and follows a slot
 * that moves.
 */
export function clusterTransport(nodes: readonly string[], instanceId: string, logger: Logger): PubSubTransport {
  const owned = connectRedisCluster(nodes, { name: `tidings-hub:${instanceId}`, logger });
  const { cluster } = owned;
  const backListeners: Array<() => void> = [];
  // A node whose connection broke reconnects on its own; once it is ready again, its
  // subscriptions may have missed messages (node-redis renews the subscriptions it held).
  let broken = false;
  cluster.on('node-reconnecting', () => {
    broken = true;
  });
  cluster.on('node-ready', () => {
    if (!broken) return;
    broken = false;
    for (const back of backListeners) back();
  });
  return {
    ready: owned.ready,
    get canPublish() {
      return cluster.isReady;
    },
    get canReceive() {
      return cluster.isReady && !broken;
    },
    publish: (channel, message) => cluster.sPublish(channel, message),
    // One SSUBSCRIBE per channel: the channels of one call must share a slot.
    subscribe: async (channels, listener) => {
      await Promise.all(channels.map((channel) => cluster.sSubscribe(channel, listener)));
    },
    unsubscribe: async (channels, listener) => {
      await Promise.all(channels.map((channel) => cluster.sUnsubscribe(channel, listener)));
    },
    held: () => null,
    onReconnect(back) {
      backListeners.push(back);
    },
    close: () => owned.close(),
  };
}
