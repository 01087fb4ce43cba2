import type { Delivery } from '../types.js';

/** A message fanned out to every process that holds streams. */
export type HubMessage =
  /** A new attempt for a browser: its open streams write it. */
  | { type: 'deliver'; delivery: Delivery }
  /** The browser was disconnected (by request or as stale): its open streams close. */
  | { type: 'close-browser'; browserId: string }
  /** The project was suspended: all its open streams close. */
  | { type: 'close-project'; projectId: string };

/**
 * Fan-out from the process that records a send to the processes that hold the browsers' open
 * streams. In one process it is a function call; a Redis hub carries the same messages between
 * processes.
 *
 * A hub may lose messages (pub/sub drops them across a reconnect), because nothing depends on
 * it alone: the store holds every attempt, and the core catches its open streams up from the
 * store when a hub reports that it may have missed messages, when a browser's sequence shows a
 * gap, and every `catchUpIntervalMs`. For the same reason `publish` never fails because the
 * transport is down: what it cannot carry is left to the catch-up.
 */
export interface Hub {
  /**
   * Hands messages on. A send does not wait for it: it publishes once its attempts are
   * committed, answers 201 at once, and logs a publish that fails. The hubs of Tidings write to
   * this process's streams before `publish` returns, so a send reaches them before its 201.
   */
  publish(messages: readonly HubMessage[]): Promise<void>;
  /**
   * Receives every message published on the hub, by any process; returns the unsubscribe
   * function. `onMissed` is called when messages may have been lost (the hub's connection came
   * back after a break): the subscriber then re-reads what it holds from the store.
   */
  subscribe(listener: (message: HubMessage) => void, onMissed?: () => void): () => void;
  close(): Promise<void>;
  /**
   * True for a hub that never loses a message, such as the in-process one: open streams then
   * need no catch-up on a timer (`catchUpIntervalMs` defaults to 0).
   */
  readonly lossless?: boolean;
}
