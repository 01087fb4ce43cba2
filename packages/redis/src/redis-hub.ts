import { randomBytes } from 'node:crypto';
import { createConsoleLogger, type Hub, type HubMessage, type Logger } from '@tidings/core';
import { connectRedis, type OwnedRedisClient, withTimeout } from './redis-client.js';

/** Options of {@link createRedisHub}. */
export interface RedisHubOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`; the hub opens two connections to it. */
  url: string;
  /**
   * The pub/sub channel. Every instance of one deployment must use the same; deployments that
   * share a Redis use different ones. @default 'tidings:hub'
   */
  channel?: string;
  /** A publish Redis has not taken within this long is left to the catch-up. @default 1000 */
  publishTimeoutMs?: number;
  /** Where lost connections and dropped messages are reported. @default createConsoleLogger() */
  logger?: Logger;
}

/** A {@link Hub} that carries messages between instances through Redis pub/sub. */
export interface RedisHub extends Hub {
  /** This instance's id, also in its connections' names (`CLIENT LIST`): `tidings-hub:<id>`, `tidings-hub-sub:<id>`. */
  readonly instanceId: string;
  /** Resolves once both connections are up. */
  ready(): Promise<void>;
}

/** At most this many messages in one PUBLISH, so that one stays far below a subscriber's output-buffer limit. */
const MAX_MESSAGES_PER_PUBLISH = 64;

/**
 * PUBLISH commands waiting for Redis at most. A send does not wait for its publish, so a Redis
 * that stalls (connected, not answering) would otherwise gather the publishes of every send
 * until it answers or each times out; past this many, a turn's publishes are dropped and left to
 * the catch-up, as while Redis is down.
 */
const MAX_PUBLISHES_IN_FLIGHT = 256;

/** What goes over the channel: the publishes of one turn, and the instance they came from. */
interface Envelope {
  from: string;
  messages: HubMessage[];
}

/**
 * Creates the hub of many instances. A publish reaches this instance's own streams at once, in
 * process, and the other instances' through a PUBLISH on a channel they all subscribe to (one for
 * all the publishes of a turn, up to 64 messages).
 *
 * Redis pub/sub is at most once: a message published while a subscriber reconnects, or dropped
 * when a subscriber passes its output-buffer limit, is gone. Nothing depends on it alone: each
 * attempt is in the store before it is published, a publish that fails is logged and dropped
 * (the send still succeeds), and when the subscribing connection comes back the hub reports
 * that it may have missed messages, so that the core catches its open streams up from the store.
 */
export function createRedisHub(options: RedisHubOptions): RedisHub {
  const channel = options.channel ?? 'tidings:hub';
  const publishTimeoutMs = options.publishTimeoutMs ?? 1_000;
  if (!(publishTimeoutMs > 0 && Number.isFinite(publishTimeoutMs))) {
    throw new TypeError(`publishTimeoutMs must be a positive number, got ${publishTimeoutMs}`);
  }
  const logger = options.logger ?? createConsoleLogger();
  const instanceId = randomBytes(8).toString('hex');
  const listeners = new Set<(message: HubMessage) => void>();
  const missedListeners = new Set<() => void>();

  const publisher: OwnedRedisClient = connectRedis(options.url, { name: `tidings-hub:${instanceId}`, logger });
  const subscriber: OwnedRedisClient = connectRedis(options.url, { name: `tidings-hub-sub:${instanceId}`, logger });

  function dispatch(messages: readonly HubMessage[]): void {
    for (const message of messages) for (const listener of listeners) listener(message);
  }

  // This instance's own messages were dispatched when they were published: they are known by
  // how their envelope begins (JSON.stringify writes `from` first), without parsing them.
  const ownPrefix = `{"from":${JSON.stringify(instanceId)},`;

  function receive(raw: string): void {
    if (raw.startsWith(ownPrefix)) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      logger.warn('ignored a hub message that is not JSON', { channel });
      return;
    }
    if (envelope.from === instanceId || !Array.isArray(envelope.messages)) return;
    dispatch(envelope.messages);
  }

  // The first `ready` is the start; every later one follows a break, during which messages may
  // have been published and lost. node-redis subscribes again before it reports `ready`.
  let connectedOnce = false;
  subscriber.client.on('ready', () => {
    if (!connectedOnce) {
      connectedOnce = true;
      return;
    }
    logger.info('hub subscription back: catching streams up from the store', { channel });
    for (const missed of missedListeners) missed();
  });
  const subscribed = subscriber.ready.then(() =>
    subscriber.client.isReady ? subscriber.client.subscribe(channel, receive) : undefined,
  );
  subscribed.catch((error: unknown) => logger.error('hub subscription failed', { channel, error: String(error) }));

  let dropping = false;
  function dropped(error: unknown): void {
    // Logged once per outage: the catch-up of every instance brings what was dropped.
    if (dropping) return;
    dropping = true;
    logger.warn('hub publishes are dropped while redis is out of reach; streams catch up from the store', {
      channel,
      error: String(error),
    });
  }

  // The publishes of one turn go out together: a group of sends answers in one turn, and one
  // PUBLISH (and one message for every instance to read, this one included) carries them all.
  let queued: HubMessage[] = [];
  let waiting: Array<() => void> = [];
  let flushing: Promise<void> | null = null;

  let inFlight = 0;

  async function publishEnvelope(messages: HubMessage[]): Promise<void> {
    const envelope: Envelope = { from: instanceId, messages };
    inFlight++;
    try {
      await withTimeout(publisher.client.publish(channel, JSON.stringify(envelope)), publishTimeoutMs);
      dropping = false;
    } catch (error) {
      dropped(error);
    } finally {
      inFlight--;
    }
  }

  async function flush(): Promise<void> {
    const messages = queued;
    const settled = waiting;
    queued = [];
    waiting = [];
    flushing = null;
    if (!publisher.client.isReady) {
      dropped('not connected');
    } else if (inFlight >= MAX_PUBLISHES_IN_FLIGHT) {
      dropped(`${inFlight} publishes are waiting for redis`);
    } else {
      const envelopes: Promise<void>[] = [];
      for (let from = 0; from < messages.length; from += MAX_MESSAGES_PER_PUBLISH) {
        envelopes.push(publishEnvelope(messages.slice(from, from + MAX_MESSAGES_PER_PUBLISH)));
      }
      await Promise.all(envelopes);
    }
    for (const done of settled) done();
  }

  return {
    instanceId,
    publish(messages) {
      if (messages.length === 0) return Promise.resolve();
      dispatch(messages);
      return new Promise<void>((resolve) => {
        queued.push(...messages);
        waiting.push(resolve);
        flushing ??= new Promise<void>((flushed) => setImmediate(() => flush().then(flushed)));
      });
    },
    subscribe(listener, onMissed) {
      listeners.add(listener);
      if (onMissed) missedListeners.add(onMissed);
      return () => {
        listeners.delete(listener);
        if (onMissed) missedListeners.delete(onMissed);
      };
    },
    async ready() {
      await Promise.all([publisher.ready, subscribed]);
    },
    async close() {
      // What was published before the close still goes out.
      await flushing;
      listeners.clear();
      missedListeners.clear();
      await Promise.all([publisher.close(), subscriber.close()]);
    },
  };
}
