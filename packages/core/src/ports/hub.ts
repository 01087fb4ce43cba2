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
 * streams. In one process it is a function call; a PostgreSQL or Redis hub carries the same
 * messages between processes.
 */
export interface Hub {
  publish(messages: readonly HubMessage[]): Promise<void>;
  /** Receives every message published on the hub; returns the unsubscribe function. */
  subscribe(listener: (message: HubMessage) => void): () => void;
  close(): Promise<void>;
}
