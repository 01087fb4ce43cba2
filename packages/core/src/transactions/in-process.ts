import { parseIdempotencyKey } from '../delivery/idempotency.js';
import {
  handOnCreated,
  type PreparedSend,
  prepareSend,
  recordSend,
  releaseSend,
  type SendOutcome,
  type SendServices,
  sendOutcome,
} from '../delivery/record-send.js';
import { type NotificationBody, notificationBodySchema, parseBody } from '../delivery/request-schemas.js';
import { type NotificationObject, notificationObject } from '../delivery/serialize.js';
import { TidingsError } from '../pipeline/errors.js';
import { namedProject, throughProjectGate } from '../pipeline/project-gate.js';
import type { KeyMode, ProjectRecord } from '../ports/records.js';
import type { AccountStore } from '../ports/store.js';
import type { PostgresTransaction, SqliteTransaction, TransactionalSends } from './transaction.js';

/** What an in-process send carries: the body of `POST /v1/notifications`, with the same rules. */
export type SendInput = NotificationBody;

/** How an in-process send is made. */
export interface SendOptions {
  /** The project to send in. @default the project the instance names (`createTidings({ project })`) */
  projectId?: string;
  /** `test` records the send without delivering it, as a test key does. @default 'live' */
  mode?: KeyMode;
  /** As the `Idempotency-Key` header: 1–255 printable ASCII characters (docs/api.md#idempotency). */
  idempotencyKey?: string;
  /**
   * The application's PostgreSQL transaction to write the send through (docs/transactions.md):
   * a node-postgres client inside `BEGIN`, or an adapter's answer for another library. Without
   * it the send is written in a transaction of its own, as over HTTP.
   */
  transaction?: PostgresTransaction;
}

/** What an in-process send recorded: the notification as `POST /v1/notifications` answers it. */
export interface SendResult {
  notification: NotificationObject;
  /** True when the idempotency key had a result already, which is returned and nothing is written. */
  replayed: boolean;
}

/**
 * A send whose checks are done (project, limits, body, idempotency key, push subscriptions),
 * ready for {@link NotificationsApi.sendSync} inside the application's synchronous SQLite
 * transaction. It is used once.
 */
export interface PreparedSqliteSend {
  readonly projectId: string;
  readonly recipient: string;
}

/** `tidings.notifications`: sends from the application's own code, without HTTP. */
export interface NotificationsApi {
  /**
   * Sends as `POST /v1/notifications` does, with the same validation, limits, idempotency and
   * errors ({@link TidingsError} with the same codes), typed. With `transaction`, the send is
   * written through the application's PostgreSQL transaction: it exists, and is delivered, only
   * if that transaction commits.
   */
  send(input: SendInput, options?: SendOptions): Promise<SendResult>;
  /**
   * The checks of a send through a better-sqlite3 transaction, which cannot wait: run them
   * before the transaction, then {@link NotificationsApi.sendSync} inside it.
   */
  prepare(input: SendInput, options?: Omit<SendOptions, 'transaction'>): Promise<PreparedSqliteSend>;
  /**
   * Writes a prepared send through the application's better-sqlite3 `Database`, inside one of
   * its transactions, synchronously. The send is delivered once that transaction has committed
   * (and the commit is on disk), never if it rolled back.
   */
  sendSync(prepared: PreparedSqliteSend, options: { transaction: SqliteTransaction }): SendResult;
}

/** What the in-process sends need from the instance. */
export interface NotificationsApiDeps {
  services: SendServices & { options: { store: AccountStore } };
  /** The store's sends through an application's transaction; null when it offers none. */
  transactional: TransactionalSends | null;
  /** The project the instance names; null when it names none. */
  appProject: (() => Promise<ProjectRecord>) | null;
}

/** The state of a prepared send, kept out of the caller's reach. */
interface PreparedState {
  used: boolean;
  outcome:
    | { kind: 'replay'; response: { status: number; body: string } }
    | { kind: 'prepared'; prepared: PreparedSend };
}

const MODES: readonly KeyMode[] = ['live', 'test'];

/** The `idempotencyKey` option read as the header is (docs/api.md#idempotency), or null without one. */
function idempotencyKeyOf(value: unknown): string | null {
  if (value === undefined) return null;
  const message = 'must be 1 to 255 printable ASCII characters';
  const invalid = () =>
    new TidingsError('VALIDATION_FAILED', `idempotencyKey ${message}`, {
      errors: [{ path: 'idempotencyKey', message }],
    });
  if (typeof value !== 'string') throw invalid();
  try {
    return parseIdempotencyKey(value);
  } catch {
    throw invalid();
  }
}

/** Makes `tidings.notifications`. */
export function createNotificationsApi(deps: NotificationsApiDeps): NotificationsApi {
  const { services, transactional } = deps;
  const { options } = services;
  const prepared = new WeakMap<PreparedSqliteSend, PreparedState>();

  /** The checks of the route's pipeline that apply without a key: the project's gate, without a key's scope. */
  async function projectOf(sendOptions: SendOptions): Promise<ProjectRecord> {
    const project = await namedProject(
      options.store,
      sendOptions.projectId,
      deps.appProject,
      'Name the project to send in: createTidings({ project: "my-app" }) or send(input, { projectId })',
    );
    await throughProjectGate(
      { limiter: services.limiter, limits: options.limits, rateLimitHeaders: options.rateLimitHeaders },
      project,
      { kind: 'project' },
      options.clock.now(),
    );
    return project;
  }

  async function request(input: SendInput, sendOptions: SendOptions) {
    if (typeof sendOptions !== 'object' || sendOptions === null) throw new TypeError('send options must be an object');
    const mode = sendOptions.mode ?? 'live';
    if (!MODES.includes(mode)) throw new TypeError(`mode must be 'live' or 'test', got ${String(mode)}`);
    const body = parseBody(notificationBodySchema, input);
    const idempotencyKey = idempotencyKeyOf(sendOptions.idempotencyKey);
    const project = await projectOf(sendOptions);
    return {
      project,
      mode,
      apiKeyId: null,
      requestId: null,
      body,
      raw: input,
      idempotencyKey,
      now: options.clock.now(),
    };
  }

  function result(outcome: SendOutcome): SendResult {
    if (outcome.kind === 'replay') {
      return { notification: JSON.parse(outcome.response.body) as NotificationObject, replayed: true };
    }
    return { notification: notificationObject(outcome.created), replayed: false };
  }

  return {
    async send(input, sendOptions = {}) {
      const transaction = sendOptions.transaction;
      if (transaction === undefined) return result(await recordSend(services, await request(input, sendOptions)));
      if (transactional?.dialect !== 'postgres') {
        throw new TypeError(
          transactional?.dialect === 'sqlite'
            ? 'On SQLite, send through a transaction with notifications.prepare() before it and sendSync() inside it'
            : 'This store takes no transaction of the application: pass one to a PostgreSQL or SQLite store of Tidings',
        );
      }
      if (typeof transaction?.query !== 'function') {
        throw new TypeError(
          'transaction must be a PostgreSQL transaction: a node-postgres client inside BEGIN, or an adapter of @tidings/store-postgres',
        );
      }
      const ready = await prepareSend(services, await request(input, sendOptions));
      if (ready.kind === 'replay') return result(ready);
      try {
        const { input: createInput } = ready.prepared;
        // Delivered on commit: the store signals it in the transaction, and every instance hears it.
        return result(
          sendOutcome(services, createInput, await transactional.createNotification(transaction, createInput)),
        );
      } finally {
        releaseSend(services, ready.prepared);
      }
    },

    async prepare(input, sendOptions = {}) {
      if (transactional?.dialect !== 'sqlite') {
        throw new TypeError('notifications.prepare() is for a better-sqlite3 transaction on a SQLite store of Tidings');
      }
      const sendRequest = await request(input, sendOptions);
      const outcome = await prepareSend(services, sendRequest);
      // The write lock of the application's transaction serializes sends with one key: the key
      // is checked again there, and needs no holding in this process meanwhile.
      if (outcome.kind === 'prepared') releaseSend(services, outcome.prepared);
      const handle: PreparedSqliteSend = Object.freeze({
        projectId: sendRequest.project.id,
        recipient: sendRequest.body.recipient,
      });
      prepared.set(handle, { used: false, outcome });
      return handle;
    },

    sendSync(handle, { transaction } = {} as { transaction: SqliteTransaction }) {
      const state = prepared.get(handle);
      if (!state) throw new TypeError('sendSync takes what notifications.prepare() of this instance returned');
      if (state.used) throw new TypeError('A prepared send is used once: prepare another');
      if (transactional?.dialect !== 'sqlite') throw new TypeError('sendSync needs a SQLite store of Tidings');
      if (typeof transaction?.prepare !== 'function') {
        throw new TypeError('transaction must be the better-sqlite3 Database of the application');
      }
      if (!transaction.inTransaction) {
        throw new TypeError('sendSync runs inside a transaction of the Database: call it within db.transaction(…)');
      }
      state.used = true;
      const { outcome } = state;
      if (outcome.kind === 'replay') return result(outcome);
      const { input } = outcome.prepared;
      const sent = sendOutcome(services, input, transactional.createNotification(transaction, input));
      if (sent.kind === 'created') {
        const { created } = sent;
        const inboxVersion = sent.inboxVersion ?? null;
        transactional
          .committed(transaction, created.notification.id)
          .then((committed) => {
            if (committed) handOnCreated(services, created, null, inboxVersion);
          })
          .catch((error: unknown) =>
            options.logger.error('a send through a SQLite transaction could not be checked', {
              notification_id: created.notification.id,
              error: String(error),
            }),
          );
      }
      return result(sent);
    },
  };
}
