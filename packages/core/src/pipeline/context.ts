import type { DeliveryHooks } from '../delivery/hooks.js';
import type { StreamRegistry } from '../delivery/stream/stream-registry.js';
import type { ResolvedOptionsWith } from '../options.js';
import type { EventStreamTarget } from '../ports/event-sink.js';
import type { Hub } from '../ports/hub.js';
import type { Limiter } from '../ports/limiter.js';
import type { KeyMode } from '../ports/records.js';
import type { Store } from '../ports/store.js';
import type { ApiKeyCheckDeps } from './api-key-checks.js';

/**
 * The parts of an instance that routes use, resolved once at construction. `Roles`: the roles of
 * the store a route uses, the whole store by default.
 */
export interface Services<Roles = Store> {
  options: ResolvedOptionsWith<Roles>;
  limiter: Limiter;
  hub: Hub;
  streams: StreamRegistry;
  /** What the API-key checks need, gathered once. */
  apiKeyChecks: ApiKeyCheckDeps;
  /**
   * The idempotency keys of sends running in this process (`<project id>\n<key>`). Kept in
   * memory only: a process that dies takes its running sends with it, and nothing holds a key.
   */
  sendsInFlight: Set<string>;
  /** Where the instance's features join the contract's own paths. */
  hooks: DeliveryHooks;
}

/** The project and key a request presented, as the request log records them. */
export interface RequestCaller {
  projectId: string;
  /** The key's first characters, never the key. */
  keyPrefix: string;
  mode: KeyMode;
}

/** One request as routes see it. */
export interface RouteContext {
  request: Request;
  url: URL;
  /** Path parameters of the matched route, e.g. `{ id }`. */
  params: Record<string, string>;
  requestId: string;
  /** The client IP grouped for limits (IPv6 by /64). */
  clientIpKey: string;
  now: number;
  /** Where public URLs of this instance start, e.g. `https://api.example.com/notify`. */
  publicBase: string;
  /**
   * Headers added to whatever answer the route gives, errors included (RateLimit…): replaced as
   * a whole by the step that decides them, never changed in place.
   */
  responseHeaders: Readonly<Record<string, string>>;
  /** Where the host lets an event stream answer be written directly; null: as a `Response` body. */
  eventStream: EventStreamTarget | null;
  /** Headers the edge adds to every answer of this route after `responseHeaders` (CORS), and before `Request-Id`. */
  edgeHeaders: Readonly<Record<string, string>>;
  /** The host writes text answers itself (`RequestContext.writesTextAnswers`). */
  writesTextAnswers: boolean;
  /**
   * Whose request it is, set by the API-key checks once the key is known (even when they refuse
   * it); null until then, and for requests without a key. Requests with a caller are logged.
   */
  caller: RequestCaller | null;
  /**
   * What the request concerns, as its route tells the request log once it knows (a send, a read
   * of a notification); null until then, and for routes that do not tell: the log then finds it
   * in the bodies.
   */
  concerns: RequestConcerns | null;
}

/** The notifications and the recipient a request concerns, for the request log. */
export interface RequestConcerns {
  notificationIds: readonly string[];
  recipient: string | null;
}
