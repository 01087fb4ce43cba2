import type { ServerResponse } from 'node:http';
import { TidingsError, toProblem } from '../pipeline/errors.js';
import { textAnswerOf } from '../pipeline/http/responses.js';
import type { EventSink, EventSinkListener, EventStreamTarget, OpenedEventStream } from '../ports/event-sink.js';
import { newId } from '../shared/ids.js';
import type { Tidings } from '../tidings.js';
import { type BridgedIncomingMessage, discardUnreadBody, toWebRequest, writeWebResponse } from './web-bridge.js';

/**
 * The header by which `@hono/node-server` (under both adapters) knows that an answer was written
 * straight to the Node response and must not be written again.
 */
export const ALREADY_SENT_HEADER = 'x-hono-already-sent';

/** Where a response keeps the sink writing to it, so that its events need no closures. */
const sinkKey = Symbol('tidings.eventSink');

type HeldResponse = ServerResponse & { [sinkKey]?: NodeEventSink };

function onDrain(this: HeldResponse): void {
  this[sinkKey]?.listener.drained();
}

function onClose(this: HeldResponse): void {
  const sink = this[sinkKey];
  this[sinkKey] = undefined;
  sink?.listener.closed();
}

/** A stream written to a Node `ServerResponse`: its own buffer and its `drain` are the backpressure. */
class NodeEventSink implements EventSink {
  constructor(
    readonly response: HeldResponse,
    readonly listener: EventSinkListener,
  ) {}

  write(bytes: Uint8Array): boolean {
    const { response } = this;
    if (response.destroyed || response.writableEnded) return false;
    // Where the head is flushed after the write returns (Node.js 24.22 sends it with the
    // flush of the first write), it is let go of once that write is out.
    const ready = headPending(response) ? response.write(bytes, () => releaseHead(response)) : response.write(bytes);
    releaseHead(response);
    return ready;
  }

  get bufferedBytes(): number {
    return this.response.writableLength;
  }

  end(): void {
    if (!this.response.writableEnded) this.response.end();
  }

  destroy(): void {
    this.response.destroy();
  }
}

/**
 * The event stream target of a request served by `node:http` (or anything that hands over its
 * `ServerResponse`): an open stream then costs the response and a small sink, and its events
 * go to the socket with `response.write`. Pass it as `eventStream` to `tidings.fetch`.
 *
 * The `Response` that `fetch` then resolves with carries {@link ALREADY_SENT_HEADER} and no
 * body: `@hono/node-server` writes nothing for it; any other host must not write it either.
 */
export function nodeEventStream(response: ServerResponse): EventStreamTarget {
  return {
    open(status: number, headers: Record<string, string>, listener: EventSinkListener): OpenedEventStream {
      const held = response as HeldResponse;
      const sink = new NodeEventSink(held, listener);
      held[sinkKey] = sink;
      held.on('drain', onDrain);
      held.on('close', onClose);
      // A stream's connection is never used for another request: closed with the stream, it is
      // let go of as each stream ends, rather than left idle for a shutdown to close in one go.
      held.writeHead(status, { ...headers, Connection: 'close' });
      return { sink, response: alreadySent() };
    },
  };
}

/** What a response's `_header` holds once its head is on the wire (see {@link releaseHead}). */
export const HEAD_SENT = 'HTTP/1.1 (head sent)\r\n\r\n';

/**
 * Node keeps the head it wrote (`_header`) for as long as the response is open, for every open
 * stream, though once it is on the wire (`_headerSent`, set by the first write, or by its flush
 * on Node.js 24.22) Node only asks whether it is set. It is then replaced with one short string that all streams
 * share. Done only where both fields are what they have long been; elsewhere nothing changes
 * but the memory.
 */
function releaseHead(response: ServerResponse): void {
  const internal = response as unknown as NodeHead;
  if (internal._header !== HEAD_SENT && internal._headerSent === true && typeof internal._header === 'string') {
    internal._header = HEAD_SENT;
  }
}

/** Whether Node holds a head it has not sent yet, in the fields {@link releaseHead} knows. */
function headPending(response: ServerResponse): boolean {
  const internal = response as unknown as NodeHead;
  return internal._headerSent === false && typeof internal._header === 'string';
}

/** The fields in which Node keeps a response's head. */
interface NodeHead {
  _header?: unknown;
  _headerSent?: unknown;
}

/**
 * A bodiless answer marked as written. Its body is read once here: `@hono/node-server`'s
 * lightweight `Response` (when it replaced the global one) otherwise takes a fast path for a
 * bodiless answer that writes the head without looking at the marker, a second time.
 */
function alreadySent(): Response {
  const marker = new Response(null, { headers: { [ALREADY_SENT_HEADER]: 'true' } });
  void marker.body;
  return marker;
}

export { type BridgedIncomingMessage, discardUnreadBody, toWebRequest, writeWebResponse };

/** Where a Node request is served: see {@link serveNode}. */
export interface ServeNodeOptions {
  /** The path Tidings is mounted under (Express's `req.baseUrl`). @default '' */
  basePath?: string;
  /** The client's socket address, for per-IP limits (`trustProxy` applies to it). */
  clientAddress?: string;
}

/**
 * Serves one Node request with Tidings: the request becomes a Web `Request`
 * ({@link toWebRequest}), the core answers, event streams are written straight to `res`
 * ({@link nodeEventStream}), any other answer with {@link writeWebResponse}, and the rest of a body
 * the core began to read is drained so the connection can serve the next request. Rejects only when
 * the core itself fails (a bug, or a store that is down): the host's error handling answers then,
 * as nothing was written. A request whose URL cannot be made into one (a malformed Host) is
 * answered 400 with problem details, as the core answers every bad request.
 */
export async function serveNode(
  tidings: Pick<Tidings, 'fetch'>,
  req: BridgedIncomingMessage,
  res: ServerResponse,
  options: ServeNodeOptions = {},
): Promise<void> {
  let request: Request;
  try {
    request = toWebRequest(req, res);
  } catch {
    const requestId = newId('req');
    const problem = toProblem(new TidingsError('VALIDATION_FAILED', 'The request URL or Host is not valid'), requestId);
    res
      .writeHead(400, { 'Content-Type': 'application/problem+json', 'Request-Id': requestId })
      .end(JSON.stringify(problem));
    if (!req.readableEnded && req.readableFlowing !== null) discardUnreadBody(req);
    return;
  }
  const response = await tidings.fetch(request, {
    clientAddress: options.clientAddress,
    basePath: options.basePath ?? '',
    eventStream: nodeEventStream(res),
    writesTextAnswers: true,
  });
  // A text answer is written as it was made; only another answer's headers are looked at.
  if (textAnswerOf(response) !== undefined || response.headers.get(ALREADY_SENT_HEADER) === null) {
    await writeWebResponse(response, res, req.method);
  }
  // Node drains a body nobody started to read by itself (readableFlowing stays null).
  if (!req.readableEnded && req.readableFlowing !== null) discardUnreadBody(req);
}

export { type PushEnvelope, pushEnvelope } from '../push/envelope.js';
export { type WebPushFeatureOptions, webPushFeature } from '../push/feature.js';
export {
  generateVapidKeys,
  MAX_PUSH_PLAINTEXT_BYTES,
  type PushMessage,
  type PushOutcome,
  type PushRequest,
  type PushSubscriptionTarget,
  type PushUrgency,
  pushOutcome,
  pushRequest,
  pushTopic,
  type VapidIdentity,
  type VapidKeys,
} from '../push/web-push.js';
export {
  excerptOf,
  signingSecrets,
  WEBHOOK_DISABLE_AFTER_MS,
  WEBHOOK_FAILING_REASON,
  WEBHOOK_MAX_RETRY_AFTER_MS,
  WEBHOOK_RESPONSE_EXCERPT_BYTES,
  WEBHOOK_RETRY_SCHEDULE_MS,
  WEBHOOK_TIMEOUT_MS,
  type WebhookAuditEntry,
  webhookAttemptOf,
  webhookRetryDelay,
} from '../webhooks/delivery.js';
export { type WebhooksFeatureOptions, webhooksFeature } from '../webhooks/feature.js';
export { type WebhooksOptions, type WebPushOptions, webhooks, webPush } from './features.js';
export {
  createOutboundSender,
  type OutboundLookup,
  type OutboundPolicy,
  type OutboundRequest,
  type OutboundResult,
  type OutboundSender,
  parseRetryAfter,
  type ResolvedAddress,
} from './outbound.js';
