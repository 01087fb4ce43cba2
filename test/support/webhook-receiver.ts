// A webhook receiver of the tests' own, on 127.0.0.1: it takes the real requests Tidings sends,
// verifies each with the official `standardwebhooks` library (unmodified) and the endpoint's
// secret, as a customer's back end would, and answers as a script says (500, 429 with
// Retry-After, a redirect, no answer at all) or with 204.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { listening } from './node-servers.js';
import { conformanceChecker } from './openapi-conformance.js';

/** A message the receiver verified and accepted with a 2xx. */
export interface ReceivedWebhook {
  /** The endpoint's name at this receiver (the last segment of its URL). */
  endpoint: string;
  /** `webhook-id`: the same on every retry, resend and replay of a message. */
  id: string;
  type: string;
  /** The body's `timestamp`: when the change happened. */
  timestamp: string;
  data: Record<string, unknown>;
  /** `webhook-timestamp`, in seconds: when this request was signed. */
  sentAtSeconds: number;
  /** How many signatures `webhook-signature` holds. */
  signatures: number;
  headers: IncomingMessage['headers'];
  /** `Date.now()` when it arrived. */
  arrivedAt: number;
}

/** Every request that reached the receiver, in order, and what it answered. */
export interface WebhookRequest {
  endpoint: string;
  /** `webhook-id`, or null when there was none. */
  id: string | null;
  /** The status answered, or `hang` (never answered) or `dropped` (connection closed, receiver down). */
  answer: number | 'hang' | 'dropped';
  arrivedAt: number;
}

/** A request the receiver refused before the script was consulted, and why. */
export interface RejectedWebhook {
  endpoint: string;
  id: string | null;
  reason: string;
}

/** What the script answers instead of 204. */
export type ScriptedWebhookAnswer =
  | { status: number; retryAfter?: string; location?: string; body?: string; delayMs?: number }
  /** No answer at all: the request hangs until the sender gives up and closes it. */
  | { hang: true };

export interface TestWebhookReceiver {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** The URL of a named endpoint at this receiver, to register with Tidings. */
  endpointUrl(name: string): string;
  /** The secret that verifies the named endpoint's messages (from the endpoint's creation). */
  setSecret(name: string, secret: string): void;
  /**
   * The next answers to the named endpoint's requests, in order, before 204s resume; a 2xx in
   * the script takes delivery (after its `delayMs`, if any: a slow receiver).
   */
  script(name: string, answers: ScriptedWebhookAnswer[]): void;
  /**
   * While down, every request's connection is closed without an answer (a network error), or,
   * given an answer, every request gets it (`{ status: 503, retryAfter: '2' }`: down for now).
   */
  setDown(down: boolean | { status: number; retryAfter?: string }): void;
  /** Verified messages answered with a 2xx, in order of arrival (retries of one message included). */
  received: ReceivedWebhook[];
  /** Those of one endpoint. */
  receivedBy(name: string): ReceivedWebhook[];
  /** Every request, in order. */
  requests: WebhookRequest[];
  /** Requests refused: unknown endpoint, bad signature, off the document's schema. */
  rejected: RejectedWebhook[];
  /** Closes it (one started with `{ closeAfterTest: false }`; others close after their test). */
  close(): Promise<void>;
}

const ENDPOINT_PATH = /^\/hooks\/([A-Za-z0-9_-]+)$/;

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

/**
 * Starts a receiver on 127.0.0.1 port 0, closed after the test; with `{ closeAfterTest: false }`
 * it serves a whole file (started in `beforeAll`) until its `close()`.
 */
export async function startWebhookReceiver(options: { closeAfterTest?: boolean } = {}): Promise<TestWebhookReceiver> {
  const secrets = new Map<string, string>();
  const scripts = new Map<string, ScriptedWebhookAnswer[]>();
  const received: ReceivedWebhook[] = [];
  const requests: WebhookRequest[] = [];
  const rejected: RejectedWebhook[] = [];
  const hanging = new Set<ServerResponse>();
  let down: boolean | { status: number; retryAfter?: string } = false;
  let url = '';

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const arrivedAt = Date.now();
    const endpoint = ENDPOINT_PATH.exec(req.url ?? '')?.[1] ?? '';
    const id = header(req, 'webhook-id');
    if (down === true) {
      requests.push({ endpoint, id, answer: 'dropped', arrivedAt });
      req.socket.destroy();
      return;
    }
    if (down) {
      requests.push({ endpoint, id, answer: down.status, arrivedAt });
      req.resume();
      res.writeHead(down.status, down.retryAfter === undefined ? {} : { 'Retry-After': down.retryAfter }).end();
      return;
    }
    const body = Buffer.concat(await req.toArray()).toString('utf8');
    const answer = (status: number, headers: Record<string, string> = {}, text = '') => {
      requests.push({ endpoint, id, answer: status, arrivedAt });
      res.writeHead(status, headers).end(text);
    };
    const reject = (status: number, reason: string) => {
      rejected.push({ endpoint, id, reason });
      answer(status);
    };
    const secret = secrets.get(endpoint);
    if (req.method !== 'POST' || !secret) return reject(404, `no endpoint ${endpoint || req.url}`);
    if (header(req, 'content-type') !== 'application/json') return reject(400, 'content-type is not application/json');
    if (header(req, 'user-agent') !== 'Tidings') return reject(400, `user-agent is ${header(req, 'user-agent')}`);

    let payload: { type: string; timestamp: string; data: Record<string, unknown> };
    try {
      payload = new Webhook(secret).verify(body, {
        'webhook-id': header(req, 'webhook-id') ?? '',
        'webhook-timestamp': header(req, 'webhook-timestamp') ?? '',
        'webhook-signature': header(req, 'webhook-signature') ?? '',
      }) as typeof payload;
    } catch (error) {
      return reject(401, `does not verify: ${(error as Error).message}`);
    }
    const issues = conformanceChecker().checkWebhook(req.headers, body);
    if (issues.length > 0) return reject(400, issues.join('; '));

    const next = scripts.get(endpoint)?.shift();
    if (next && 'delayMs' in next && next.delayMs) await new Promise((resolve) => setTimeout(resolve, next.delayMs));
    if (next && 'hang' in next) {
      requests.push({ endpoint, id, answer: 'hang', arrivedAt });
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (next && (next.status < 200 || next.status > 299)) {
      const headers: Record<string, string> = {};
      if (next.retryAfter !== undefined) headers['Retry-After'] = next.retryAfter;
      if (next.location !== undefined) headers.Location = next.location;
      return answer(next.status, headers, next.body ?? '');
    }
    received.push({
      endpoint,
      id: id!,
      type: payload.type,
      timestamp: payload.timestamp,
      data: payload.data,
      sentAtSeconds: Number(header(req, 'webhook-timestamp')),
      signatures: (header(req, 'webhook-signature') ?? '').split(' ').length,
      headers: req.headers,
      arrivedAt,
    });
    answer(next?.status ?? 204);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      rejected.push({ endpoint: '', id: null, reason: String(error) });
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  if (options.closeAfterTest === false) {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  } else {
    url = await listening(server);
  }

  return {
    url,
    received,
    requests,
    rejected,
    endpointUrl: (name) => `${url}/hooks/${name}`,
    setSecret(name, secret) {
      secrets.set(name, secret);
    },
    script(name, answers) {
      const script = scripts.get(name) ?? [];
      script.push(...answers);
      scripts.set(name, script);
    },
    setDown(value) {
      down = value;
    },
    receivedBy: (name) => received.filter((message) => message.endpoint === name),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}
