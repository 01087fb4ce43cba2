import { randomBytes } from 'node:crypto';
import { createConsoleLogger, type Hub, type HubMessage, hubMessageBrowserId, type Logger } from '@tidings/core';
import { clusterTransport, type PubSubTransport, singleNodeTransport } from './pubsub-transport.js';
import { parseClusterNodes, withTimeout } from './redis-client.js';

/**
 * How messages travel between instances:
 *
 * - `'browser'`: one channel per browser (`<channel>:browser:<browserId>`); an instance subscribes
 *   to the channels of the browsers whose streams it holds, so a send reaches only the instances
 *   that hold the browser's streams.
 * - `{ shards: n }`: `n` channels (`<channel>:shard:<i>`), a browser's by a hash of its id; an
 *   instance subscribes to the shards of its browsers, and reads and drops the messages of the
 *   other browsers of those shards.
 * - `'broadcast'`: every message on `<channel>`, which every instance reads.
 *
 * The messages of a whole project (a suspension) go on `<channel>` in every mode, and every
 * instance subscribes to it. Every instance of a deployment must use the same routing.
 */
export type RedisHubRouting = 'browser' | 'broadcast' | { shards: number };

/** Options of {@link createRedisHub}. */
export interface RedisHubOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`; the hub opens two connections to it. */
  url?: string;
  /**
   * The nodes of a Redis Cluster (7 or newer), `host:port` each (or `['h1:p1,h2:p2']`), instead
   * of `url`: the hub then uses sharded pub/sub (`SPUBLISH`/`SSUBSCRIBE`), so a message goes only
   * to the nodes of its channel's slot.
   */
  cluster?: string | readonly string[];
  /**
   * The pub/sub channel, and the prefix of the browsers' channels. Every instance of one
   * deployment must use the same; deployments that share a Redis use different ones.
   * @default 'tidings:hub'
   */
  channel?: string;
  /** @default 'browser' */
  routing?: RedisHubRouting;
  /** A publish Redis has not taken within this long is left to the catch-up. @default 1000 */
  publishTimeoutMs?: number;
  /**
   * A `follow` resolves after this long even when Redis has not confirmed the subscription, so
   * that a stream does not wait on a Redis that stalls. When Redis confirms it later, the hub
   * reports the browsers followed on that channel as possibly missed (`onMissed`), and the core
   * catches their streams up from the store at once.
   * @default 1000
   */
  subscribeTimeoutMs?: number;
  /**
   * While Redis is out of this instance's reach (a publish was dropped since the last check, or
   * a connection is down), the hub reports every stream as possibly missing messages this often:
   * the other instances' publishes are likely dropped too, and cannot be named until Redis is
   * back. @default 5000
   */
  outageReportMs?: number;
  /** Where lost connections and dropped messages are reported. @default createConsoleLogger() */
  logger?: Logger;
}

/** What a hub has read from Redis, for benchmarks and metrics. */
export interface RedisHubStats {
  /** Messages (each the publishes of one turn on one channel) read from the subscribing connection, own ones included. */
  received: number;
  /** Channels subscribed to, or being subscribed to, the deployment's channel included. */
  channels: number;
}

/** A {@link Hub} that carries messages between instances through Redis pub/sub. */
export interface RedisHub extends Hub {
  /** This instance's id, also in its connections' names (`CLIENT LIST`): `tidings-hub:<id>`, `tidings-hub-sub:<id>`. */
  readonly instanceId: string;
  /** Resolves once both connections are up. */
  ready(): Promise<void>;
  follow(browserId: string): Promise<void>;
  unfollow(browserId: string): void;
  stats(): RedisHubStats;
}

/** At most this many messages in one PUBLISH, so that one stays far below a subscriber's output-buffer limit. */
const MAX_MESSAGES_PER_PUBLISH = 64;

/**
 * Publishes (the PUBLISH commands of one turn) waiting for Redis at most. A send does not wait
 * for its publish, so a Redis that stalls (connected, not answering) would otherwise gather the
 * publishes of every send until it answers or each times out; past this many, a turn's
 * publishes are dropped and left to the catch-up, as while Redis is down.
 */
const MAX_PUBLISHES_IN_FLIGHT = 256;

/**
 * Browsers whose dropped publishes one notice names at most; past this many dropped at once,
 * the notice asks every instance to catch every stream up instead.
 */
const MAX_NAMED_MISSES = 10_000;
/** Browsers named in one PUBLISH of a notice. */
const MISSES_PER_NOTICE = 500;
/** How often a notice of dropped publishes is tried while Redis does not take publishes. */
const NOTICE_RETRY_MS = 500;

/**
 * What goes over a channel: the publishes of one turn, and the instance they came from; or a
 * notice (`missed`) that this instance dropped publishes of these browsers (`'all'`: of browsers
 * too many to name, or of a whole project) while Redis was out of its reach.
 */
interface Envelope {
  from: string;
  messages: HubMessage[];
  missed?: string[] | 'all';
}

/** FNV-1a of a browser id: the same shard on every instance, whatever its platform. */
function shardOf(browserId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < browserId.length; i++) {
    hash ^= browserId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** The channel of a browser's messages under a routing, or of the deployment's. */
export function redisHubChannel(channel: string, routing: RedisHubRouting, browserId: string | null): string {
  if (browserId === null || routing === 'broadcast') return channel;
  if (routing === 'browser') return `${channel}:browser:${browserId}`;
  return `${channel}:shard:${shardOf(browserId, routing.shards)}`;
}

/**
 * Creates the hub of many instances. A publish reaches this instance's own streams at once, in
 * process, and the other instances' through a PUBLISH on the channel of each browser (see
 * {@link RedisHubRouting}): one for all the publishes of a turn on a channel, up to 64 messages.
 * An instance subscribes to a browser's channel when the browser's first stream opens here
 * (`follow` resolves once Redis confirmed it, or after `subscribeTimeoutMs`) and unsubscribes
 * when the last one ends. A subscription that Redis confirms after its follows resolved is
 * reported through `onMissed` with the browsers followed on its channel: what was published
 * between their streams' reads of the store and the subscription did not reach them.
 *
 * Redis pub/sub is at most once: a message published while a subscriber reconnects, or dropped
 * when a subscriber passes its output-buffer limit, is gone. Nothing depends on it alone: each
 * attempt is in the store before it is published, and every loss the hub can see is reported so
 * that the core catches the streams concerned up from the store. When the subscribing connection
 * comes back the hub subscribes again to every channel it needs and then reports that it may have
 * missed messages. A publish that fails or is dropped (the send still succeeds) is logged, and
 * once Redis takes publishes again the hub publishes a notice naming the dropped messages'
 * browsers on their channels, so that the instances holding their streams report them in turn.
 */
export function createRedisHub(options: RedisHubOptions): RedisHub {
  const channel = options.channel ?? 'tidings:hub';
  const routing = options.routing ?? 'browser';
  if (typeof routing === 'object' && !(Number.isInteger(routing.shards) && routing.shards > 0)) {
    throw new TypeError(`routing.shards must be a positive integer, got ${routing.shards}`);
  }
  if (routing !== 'browser' && routing !== 'broadcast' && typeof routing !== 'object') {
    throw new TypeError(`routing must be 'browser', 'broadcast' or { shards }, got ${String(routing)}`);
  }
  const publishTimeoutMs = options.publishTimeoutMs ?? 1_000;
  if (!(publishTimeoutMs > 0 && Number.isFinite(publishTimeoutMs))) {
    throw new TypeError(`publishTimeoutMs must be a positive number, got ${publishTimeoutMs}`);
  }
  const subscribeTimeoutMs = options.subscribeTimeoutMs ?? 1_000;
  if (!(subscribeTimeoutMs > 0 && Number.isFinite(subscribeTimeoutMs))) {
    throw new TypeError(`subscribeTimeoutMs must be a positive number, got ${subscribeTimeoutMs}`);
  }
  const outageReportMs = options.outageReportMs ?? 5_000;
  if (!(outageReportMs > 0 && Number.isFinite(outageReportMs))) {
    throw new TypeError(`outageReportMs must be a positive number, got ${outageReportMs}`);
  }
  const logger = options.logger ?? createConsoleLogger();
  const instanceId = randomBytes(8).toString('hex');
  const listeners = new Set<(message: HubMessage) => void>();
  const missedListeners = new Set<(browserIds?: readonly string[]) => void>();
  /** Follows per browser: its messages reach this instance's listeners while it has any. */
  const followed = new Map<string, number>();
  /** The channels this instance needs, with the follows that need each, and their subscription. */
  const channels = new Map<string, { follows: number; subscribed: Promise<void> }>();
  let received = 0;
  let closed = false;

  let transport: PubSubTransport;
  if (options.cluster !== undefined) {
    if (options.url !== undefined) throw new TypeError('createRedisHub takes a url or a cluster, not both');
    transport = clusterTransport(parseClusterNodes(options.cluster), instanceId, logger);
  } else if (options.url !== undefined) {
    transport = singleNodeTransport(options.url, instanceId, logger);
  } else {
    throw new TypeError('createRedisHub needs a url or a cluster');
  }

  const channelOf = (browserId: string | null) => redisHubChannel(channel, routing, browserId);

  /** Items by the channel of their browser, each channel's in the order given. */
  function byChannelOf<T>(items: readonly T[], browserOf: (item: T) => string | null): Map<string, T[]> {
    const byChannel = new Map<string, T[]>();
    for (const item of items) {
      const to = channelOf(browserOf(item));
      const list = byChannel.get(to);
      if (list) list.push(item);
      else byChannel.set(to, [item]);
    }
    return byChannel;
  }

  /** Hands messages to the listeners: a browser's only while this instance follows it. */
  function dispatch(messages: readonly HubMessage[]): void {
    for (const message of messages) {
      const browserId = hubMessageBrowserId(message);
      if (browserId !== null && !followed.has(browserId)) continue;
      for (const listener of listeners) listener(message);
    }
  }

  // This instance's own messages were dispatched when they were published: they are known by
  // how their envelope begins (JSON.stringify writes `from` first), without parsing them.
  const ownPrefix = `{"from":${JSON.stringify(instanceId)},`;

  function receive(raw: string, from: string): void {
    received++;
    if (raw.startsWith(ownPrefix)) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      logger.warn('ignored a hub message that is not JSON', { channel: from });
      return;
    }
    if (envelope.from === instanceId || !Array.isArray(envelope.messages)) return;
    if (envelope.missed !== undefined) missedElsewhere(envelope.missed);
    dispatch(envelope.messages);
  }

  /** Another instance dropped publishes: the streams here of the browsers it names catch up. */
  function missedElsewhere(missed: string[] | 'all'): void {
    if (missed === 'all') {
      for (const listener of missedListeners) listener();
      return;
    }
    if (!Array.isArray(missed)) return;
    const browserIds = missed.filter((browserId) => typeof browserId === 'string' && followed.has(browserId));
    if (browserIds.length === 0) return;
    for (const listener of missedListeners) listener(browserIds);
  }

  /**
   * Subscribes; resolves once Redis confirmed it, or failed, or after `subscribeTimeoutMs`,
   * whichever comes first. A subscription asked for while the connection is down goes out once
   * it is back (node-redis queues it, and the reconnect below asks for every needed channel).
   * One that Redis confirms after the timeout reports the browsers followed on its channels.
   */
  function subscribeTo(names: string[]): Promise<void> {
    // After the first connection: a cluster client refuses commands until it knows the slots.
    const confirmed = transport.ready
      .then(async () => {
        if (closed) return false;
        await transport.subscribe(names, receive);
        return true;
      })
      .catch(() => {
        // The connection broke: the reconnect below subscribes again, then reports missed
        // messages for every stream, those of this subscription's browsers included.
        return false;
      });
    return new Promise<void>((resolve) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        resolve();
      }, subscribeTimeoutMs);
      timer.unref?.();
      void confirmed.then((subscribed) => {
        clearTimeout(timer);
        resolve();
        if (timedOut && subscribed) confirmedLate(names);
      });
    });
  }

  /** Browsers followed here whose channel is one of these. */
  function followedOn(names: readonly string[]): string[] {
    if (routing === 'browser') {
      const browserPrefix = `${channel}:browser:`;
      const browserIds: string[] = [];
      for (const name of names) {
        if (!name.startsWith(browserPrefix)) continue;
        const browserId = name.slice(browserPrefix.length);
        if (followed.has(browserId)) browserIds.push(browserId);
      }
      return browserIds;
    }
    const wanted = new Set(names);
    return [...followed.keys()].filter((browserId) => wanted.has(channelOf(browserId)));
  }

  /** Browsers whose subscription was confirmed late, reported together once per turn. */
  let late: Set<string> | null = null;

  /**
   * Redis confirmed a subscription after the follows waiting on it had resolved: their streams
   * read the store meanwhile, and what was published between that read and the subscription
   * reached neither. Their browsers are reported, so that the core catches just them up at once
   * instead of at its next periodic catch-up.
   */
  function confirmedLate(names: readonly string[]): void {
    if (closed) return;
    const browserIds = followedOn(names.filter((name) => channels.has(name)));
    if (browserIds.length === 0) return;
    if (late === null) {
      late = new Set();
      setImmediate(() => {
        const reported = [...(late ?? [])];
        late = null;
        if (closed || reported.length === 0) return;
        logger.info('hub subscriptions confirmed late: catching their streams up from the store', {
          channel,
          browsers: reported.length,
        });
        for (const missed of missedListeners) missed(reported);
      });
    }
    for (const browserId of browserIds) late.add(browserId);
  }

  function unsubscribeFrom(names: string[]): void {
    if (closed || names.length === 0) return;
    transport.unsubscribe(names, receive).catch(() => {
      // The connection broke: the reconnect below leaves what is no longer needed.
    });
  }

  // The deployment's channel, subscribed for the hub's whole life.
  channels.set(channel, { follows: 1, subscribed: Promise.resolve() });
  const subscribed = subscribeTo([channel]);
  channels.get(channel)!.subscribed = subscribed;

  // The first `ready` is the start; every later one follows a break, during which messages may
  // have been published and lost. node-redis subscribes again to the channels it held before it
  // reports `ready`; the hub then subscribes to those it asked for while the connection was
  // down, leaves those it no longer needs, and only then reports possibly missed messages, so
  // that the catch-up reads the store once every subscription is back.
  transport.onReconnect(() => {
    const held = transport.held();
    const missing = held ? [...channels.keys()].filter((name) => !held.has(name)) : [...channels.keys()];
    if (held) unsubscribeFrom([...held].filter((name) => !channels.has(name)));
    const back = missing.length > 0 ? subscribeTo(missing) : Promise.resolve();
    void back.then(() => {
      if (closed) return;
      logger.info('hub subscription back: catching streams up from the store', { channel });
      for (const missed of missedListeners) missed();
    });
  });

  let dropping = false;
  let droppedSinceCheck = false;
  function dropped(error: unknown, messages: readonly HubMessage[]): void {
    missedOut(messages);
    droppedSinceCheck = true;
    // Logged once per outage: the notice of what was dropped follows once Redis is back.
    if (dropping) return;
    dropping = true;
    logger.warn('hub publishes are dropped while redis is out of reach; their streams catch up from the store', {
      channel,
      error: String(error),
    });
  }

  const outageTimer = setInterval(() => {
    const troubled = droppedSinceCheck || !transport.canPublish || !transport.canReceive;
    droppedSinceCheck = false;
    if (!troubled || closed) return;
    for (const missed of missedListeners) missed();
  }, outageReportMs);
  outageTimer.unref?.();

  /** Browsers whose publishes were dropped, not yet named in a notice; `all` once too many or a project's. */
  let unnoticed = new Set<string>();
  let unnoticedAll = false;
  let noticeTimer: ReturnType<typeof setTimeout> | null = null;

  function missedOut(messages: readonly HubMessage[]): void {
    for (const message of messages) {
      const browserId = hubMessageBrowserId(message);
      if (browserId === null) unnoticedAll = true;
      else unnoticed.add(browserId);
    }
    if (unnoticed.size > MAX_NAMED_MISSES) unnoticedAll = true;
    if (unnoticedAll) unnoticed.clear();
    noticeTimer ??= setTimeout(sendNotice, NOTICE_RETRY_MS);
    noticeTimer.unref?.();
  }

  /**
   * Publishes the notice of dropped publishes once Redis takes publishes: on the channel of each
   * browser it names (the instances holding its streams read it), or on the deployment's channel
   * for every stream. A notice that fails is tried again; one that may have arrived although it
   * timed out costs a catch-up too many, never a message.
   */
  function sendNotice(): void {
    noticeTimer = null;
    if (closed) return;
    if (!transport.canPublish || inFlight >= MAX_PUBLISHES_IN_FLIGHT) {
      noticeTimer = setTimeout(sendNotice, NOTICE_RETRY_MS);
      noticeTimer.unref?.();
      return;
    }
    const all = unnoticedAll;
    const browserIds = [...unnoticed];
    unnoticedAll = false;
    unnoticed = new Set();
    const notices: Array<{ to: string; missed: string[] | 'all'; browserIds: string[] }> = [];
    if (all) notices.push({ to: channel, missed: 'all', browserIds: [] });
    else {
      for (const [to, list] of byChannelOf(browserIds, (browserId) => browserId)) {
        for (let from = 0; from < list.length; from += MISSES_PER_NOTICE) {
          const named = list.slice(from, from + MISSES_PER_NOTICE);
          notices.push({ to, missed: named, browserIds: named });
        }
      }
    }
    inFlight++;
    void Promise.all(
      notices.map(async (notice) => {
        const envelope: Envelope = { from: instanceId, messages: [], missed: notice.missed };
        try {
          await withTimeout(transport.publish(notice.to, JSON.stringify(envelope)), publishTimeoutMs);
        } catch {
          // Named again in the next notice.
          if (notice.missed === 'all') unnoticedAll = true;
          for (const browserId of notice.browserIds) unnoticed.add(browserId);
          noticeTimer ??= setTimeout(sendNotice, NOTICE_RETRY_MS);
          noticeTimer.unref?.();
          return;
        }
      }),
    ).finally(() => {
      inFlight--;
    });
    logger.info('reported the hub publishes dropped while redis was out of reach to the other instances', {
      channel,
      browsers: all ? 'all' : browserIds.length,
    });
  }

  // The publishes of one turn go out together: a group of sends answers in one turn, and one
  // PUBLISH per channel carries all of its messages.
  let queued: HubMessage[] = [];
  let waiting: Array<() => void> = [];
  let flushing: Promise<void> | null = null;

  let inFlight = 0;

  async function publishEnvelope(to: string, messages: HubMessage[]): Promise<void> {
    const envelope: Envelope = { from: instanceId, messages };
    try {
      await withTimeout(transport.publish(to, JSON.stringify(envelope)), publishTimeoutMs);
      dropping = false;
    } catch (error) {
      dropped(error, messages);
    }
  }

  async function flush(): Promise<void> {
    const messages = queued;
    const settled = waiting;
    queued = [];
    waiting = [];
    flushing = null;
    if (!transport.canPublish) {
      dropped('not connected', messages);
    } else if (inFlight >= MAX_PUBLISHES_IN_FLIGHT) {
      dropped(`${inFlight} publishes are waiting for redis`, messages);
    } else {
      // By channel, each in the order published: a browser's messages keep their order. The
      // PUBLISH commands of a turn leave in one write (node-redis pipelines them).
      const envelopes: Promise<void>[] = [];
      for (const [to, list] of byChannelOf(messages, hubMessageBrowserId)) {
        for (let from = 0; from < list.length; from += MAX_MESSAGES_PER_PUBLISH) {
          envelopes.push(publishEnvelope(to, list.slice(from, from + MAX_MESSAGES_PER_PUBLISH)));
        }
      }
      inFlight++;
      try {
        await Promise.all(envelopes);
      } finally {
        inFlight--;
      }
    }
    for (const done of settled) done();
  }

  return {
    instanceId,
    lossesReported: true,
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
    follow(browserId) {
      if (closed) return Promise.resolve();
      followed.set(browserId, (followed.get(browserId) ?? 0) + 1);
      const name = channelOf(browserId);
      const held = channels.get(name);
      if (held) {
        held.follows++;
        return held.subscribed;
      }
      const entry = { follows: 1, subscribed: subscribeTo([name]) };
      channels.set(name, entry);
      return entry.subscribed;
    },
    unfollow(browserId) {
      const follows = followed.get(browserId);
      if (follows === undefined) return;
      if (follows > 1) followed.set(browserId, follows - 1);
      else followed.delete(browserId);
      const name = channelOf(browserId);
      const held = channels.get(name);
      if (!held || name === channel) return;
      held.follows--;
      if (held.follows > 0) return;
      channels.delete(name);
      unsubscribeFrom([name]);
    },
    stats() {
      return { received, channels: channels.size };
    },
    async ready() {
      await Promise.all([transport.ready, subscribed]);
    },
    async close() {
      // What was published before the close still goes out.
      await flushing;
      closed = true;
      if (noticeTimer !== null) clearTimeout(noticeTimer);
      clearInterval(outageTimer);
      listeners.clear();
      missedListeners.clear();
      followed.clear();
      channels.clear();
      await transport.close();
    },
  };
}
