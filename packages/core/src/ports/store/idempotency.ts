import type { NotificationStore } from './notifications.js';

/** Outcome of {@link IdempotencyStore.findIdempotentResponse}. */
export type IdempotencyLookup =
  /** No unexpired result is stored under the key: the request executes. */
  | { kind: 'none' }
  /** A completed request with the same fingerprint: answer with its stored response. */
  | { kind: 'replay'; status: number; body: string }
  /** The key was used with another fingerprint (body or mode). */
  | { kind: 'mismatch' };

/** The idempotency key a send carries, recorded with its result in the send's transaction. */
export interface IdempotencyInput {
  key: string;
  /** The canonical body and mode, hashed: another fingerprint under the same key is a mismatch. */
  fingerprint: string;
  /** When the stored result stops answering for the key. */
  expiresAt: number;
}

/** The stored response of a request, kept for idempotent replays. */
export interface StoredResponse {
  status: number;
  body: string;
}

/** The fast path of idempotent sends: a replay answered before the send pipeline runs. */
export interface IdempotencyStore {
  /**
   * Reads the result stored under an idempotency key of a project, without writing: the same
   * fingerprint replays, another is a mismatch, nothing (or a record past its expiry) is none.
   * A fast path only: {@link NotificationStore.createNotification} checks again in its transaction.
   */
  findIdempotentResponse(input: {
    projectId: string;
    key: string;
    fingerprint: string;
    now: number;
  }): Promise<IdempotencyLookup>;
}
