import type { Delivery } from './records.js';

/** A message fanned out to the processes that hold streams. */
export type HubMessage =
  /** A new attempt for a browser: its open streams write it. */
  | { type: 'deliver'; delivery: Delivery }
  /** The browser was disconnected (by request or as stale): its open streams close. */
  | { type: 'close-browser'; browserId: string }
  /**
   * A change of the recipient's inbox, for one of their browsers: its open streams write it as an
   * `inbox` event. `update` is the inbox update object as JSON.
   */
  | { type: 'inbox'; browserId: string; update: string }
  /** The project was suspended: all its open streams close. */
  | { type: 'close-project'; projectId: string };

/**
 * The browser a message is for, or null for a message of the whole deployment (a project's
 * suspension), which every process receives.
 */
export function hubMessageBrowserId(message: HubMessage): string | null {
  switch (message.type) {
    case 'deliver':
      return message.delivery.browserId;
    case 'close-browser':
    case 'inbox':
      return message.browserId;
    case 'close-project':
      return null;
  }
}

/**
 * Fan-out from the process that records a send to the processes that hold the browsers' open
 * streams. In one process it is a function call; a Redis hub carries the same messages between
 * processes.
 *
 * A hub routes: a process receives the messages of the browsers it follows (`follow`, called
 * for every stream it opens, `unfollow` when the stream ends) and the messages of the whole
 * deployment (`close-project`), and no other. A hub without `follow` carries every message to
 * every process; the core then routes them to its streams itself.
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
   * The messages of one browser arrive in the order they were published.
   */
  publish(messages: readonly HubMessage[]): Promise<void>;
  /**
   * Receives the messages of the browsers this process follows and those of the whole
   * deployment, published by any process; returns the unsubscribe function. `onMissed` is
   * called when messages may have been lost, and the subscriber then re-reads from the store
   * what its streams should hold: without browsers, those of every stream (the hub's connection
   * came back after a break); with a list, those of these browsers only (a `follow` that
   * resolved before the hub received the browser's messages, which it now does).
   */
  subscribe(listener: (message: HubMessage) => void, onMissed?: (browserIds?: readonly string[]) => void): () => void;
  /**
   * Starts receiving a browser's messages in this process. Counted: each call is matched by one
   * `unfollow`, and the browser is followed while any call is not. Resolves once the hub
   * receives them (a Redis hub: once Redis confirmed the subscription), so that a stream that
   * reads its backlog from the store after it misses nothing published in between; it resolves
   * anyway, without that promise, when the transport is out of reach or slow, and never
   * rejects. What the stream may miss then is covered by the catch-up: a hub that receives the
   * browser's messages later reports the browser through `onMissed`.
   */
  follow?(browserId: string): Promise<void>;
  /** Ends one `follow` of the browser; after the last one this process no longer receives its messages. */
  unfollow?(browserId: string): void;
  close(): Promise<void>;
  /**
   * True for a hub that never loses a message, such as the in-process one: open streams then
   * need no catch-up on a timer (`catchUpIntervalMs` defaults to 0).
   */
  readonly lossless?: boolean;
  /**
   * True for a hub that reports through `onMissed` every loss it can see, those of its sending
   * side included (the Redis hub names the browsers whose publishes it dropped to the processes
   * that hold them). The catch-up on a timer then covers only what no hub sees, such as a process
   * that stopped between a send's commit and its publish, and `catchUpIntervalMs` defaults to
   * 30 s instead of 5 s.
   */
  readonly lossesReported?: boolean;
}
