// A push service (RFC 8030) of the tests' own, on 127.0.0.1: it takes the real request a browser
// vendor's service would, checks its VAPID token (RFC 8292) against the key in the same header,
// decrypts the payload (RFC 8291) with the subscription's private keys, which it alone holds as a
// browser would, and answers as a script says (429 with Retry-After, 410, …) or with 201.
import { createECDH, createPublicKey, randomBytes, randomUUID, verify } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createSecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';
import { onTestFinished } from 'vitest';
import { listening } from './node-servers.js';
import { testCertificate } from './tls-certificate.js';

/** A message the service accepted, decrypted. */
export interface ReceivedPush {
  subscriptionId: string;
  payload: string;
  ttl: number;
  urgency: string | null;
  topic: string | null;
  /** The VAPID token's `sub`. */
  subject: string;
  /** The VAPID public key (`k`). */
  vapidKey: string;
}

/** A request the service refused before the script was consulted, and why. */
export interface RejectedPush {
  subscriptionId: string;
  status: number;
  reason: string;
}

/** An answer the script gives instead of 201. */
export interface ScriptedAnswer {
  status: number;
  retryAfter?: string;
}

interface Subscription {
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
  gone: boolean;
  script: ScriptedAnswer[];
}

export interface TestPushService {
  url: string;
  /** A new subscription: what a browser's `PushSubscription` would hand over. */
  subscribe(): { id: string; endpoint: string; p256dh: string; auth: string };
  /** The next answers to this subscription's pushes, in order, before 201s resume. */
  script(id: string, answers: ScriptedAnswer[]): void;
  /** From now on the subscription answers 410 Gone, as after the user revoked permission. */
  expire(id: string): void;
  received: ReceivedPush[];
  rejected: RejectedPush[];
  /** Every request that reached the service, in order: status answered per subscription. */
  answered: { subscriptionId: string; status: number }[];
  /** The HTTP version of every request that reached the service, in order: `1.1` or `2.0`. */
  versions: string[];
  /** Closes it (a service that outlives one test; others close after their test). */
  close(): Promise<void>;
}

/**
 * Starts a push service on 127.0.0.1 port 0, closed after the test; with `{ closeAfterTest:
 * false }` it serves a whole file (started in `beforeAll`) until its `close()`.
 */
export async function startTestPushService(
  options: { closeAfterTest?: boolean; http2?: boolean } = {},
): Promise<TestPushService> {
  const subscriptions = new Map<string, Subscription>();
  const received: ReceivedPush[] = [];
  const rejected: RejectedPush[] = [];
  const answered: { subscriptionId: string; status: number }[] = [];
  const versions: string[] = [];
  let url = '';

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const id = /^\/push\/([A-Za-z0-9-]+)$/.exec(req.url ?? '')?.[1] ?? '';
    const body = Buffer.concat(await req.toArray());
    const answer = (status: number, headers: Record<string, string> = {}) => {
      answered.push({ subscriptionId: id, status });
      res.writeHead(status, headers).end();
    };
    const reject = (status: number, reason: string) => {
      rejected.push({ subscriptionId: id, status, reason });
      answer(status);
    };
    const subscription = subscriptions.get(id);
    if (req.method !== 'POST' || !subscription) return answer(404);
    if (subscription.gone) return answer(410);

    const ttl = Number(req.headers.ttl);
    if (req.headers.ttl === undefined || !Number.isInteger(ttl) || ttl < 0) return reject(400, 'TTL missing or bad');
    if (req.headers['content-encoding'] !== 'aes128gcm') return reject(400, 'Content-Encoding is not aes128gcm');
    if (body.length > 4096) return reject(413, `body of ${body.length} bytes`);
    const vapid = checkVapid(req.headers.authorization ?? '', new URL(url).origin);
    if ('error' in vapid) return reject(401, vapid.error);

    let payload: string;
    try {
      payload = ece
        .decrypt(body, {
          version: 'aes128gcm',
          privateKey: subscription.ecdh,
          authSecret: subscription.auth.toString('base64url'),
        })
        .toString('utf8');
    } catch (error) {
      return reject(400, `payload does not decrypt: ${(error as Error).message}`);
    }
    const next = subscription.script.shift();
    if (next) return answer(next.status, next.retryAfter === undefined ? {} : { 'Retry-After': next.retryAfter });
    received.push({
      subscriptionId: id,
      payload,
      ttl,
      urgency: header(req, 'urgency'),
      topic: header(req, 'topic'),
      subject: vapid.subject,
      vapidKey: vapid.key,
    });
    answer(201, { Location: `${url}/message/${randomUUID()}` });
  };

  const serve = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    versions.push(req.httpVersion);
    // HTTP/2's compatibility objects answer to what `handle` uses of HTTP/1.1's.
    handle(req as IncomingMessage, res as ServerResponse).catch((error: unknown) => {
      rejected.push({ subscriptionId: '', status: 500, reason: String(error) });
      if (!res.headersSent) (res as ServerResponse).writeHead(500).end();
    });
  };
  if (options.http2) {
    // As push services are: TLS, HTTP/2 offered first (test certificate, trusted through `ca`).
    const server = createSecureServer({ ...testCertificate(), allowHTTP1: true }, serve);
    const sessions = new Set<ServerHttp2Session>();
    server.on('session', (session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const close = async () => {
      for (const session of sessions) session.destroy();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    };
    if (options.closeAfterTest !== false) onTestFinished(close);
    return service(close);
  }
  const server = createServer(serve);
  if (options.closeAfterTest === false) {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  } else {
    url = await listening(server);
  }

  return service(async () => {
    server.closeAllConnections();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  });

  function service(close: () => Promise<void>): TestPushService {
    return { url, received, rejected, answered, versions, close, subscribe, script, expire };
  }
  function subscribe() {
    const id = randomUUID();
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    subscriptions.set(id, { ecdh, auth, gone: false, script: [] });
    return {
      id,
      endpoint: `${url}/push/${id}`,
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: auth.toString('base64url'),
    };
  }
  function script(id: string, answers: ScriptedAnswer[]) {
    subscriptionOf(subscriptions, id).script.push(...answers);
  }
  function expire(id: string) {
    subscriptionOf(subscriptions, id).gone = true;
  }
}

function subscriptionOf(subscriptions: Map<string, Subscription>, id: string): Subscription {
  const subscription = subscriptions.get(id);
  if (!subscription) throw new Error(`no subscription ${id}`);
  return subscription;
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

/**
 * Checks `Authorization: vapid t=<JWT>, k=<key>` as RFC 8292 says: an ES256 JWT signed by the
 * key `k`, whose `aud` is the push service's origin, whose `exp` is in the future and at most
 * 24 hours away, and whose `sub` is a `mailto:` or `https:` contact.
 */
export function checkVapid(
  authorization: string,
  audience: string,
  nowMs = Date.now(),
): { subject: string; key: string } | { error: string } {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+),\s*k=([\w-]+)$/.exec(authorization);
  if (!match) return { error: 'Authorization is not "vapid t=…, k=…"' };
  const [, token = '', key = ''] = match;
  const [encodedHeader = '', encodedClaims = '', signature = ''] = token.split('.');
  const point = Buffer.from(key, 'base64url');
  if (point.length !== 65 || point[0] !== 4) return { error: 'k is not an uncompressed P-256 point' };
  const publicKey = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = Buffer.from(`${encodedHeader}.${encodedClaims}`);
  if (!verify('sha256', signed, { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))) {
    return { error: 'the token is not signed by k' };
  }
  const head = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8')) as { alg?: string };
  if (head.alg !== 'ES256') return { error: `alg ${head.alg} is not ES256` };
  const claims = JSON.parse(Buffer.from(encodedClaims, 'base64url').toString('utf8')) as {
    aud?: string;
    exp?: number;
    sub?: string;
  };
  if (claims.aud !== audience) return { error: `aud ${claims.aud} is not ${audience}` };
  const nowSeconds = nowMs / 1000;
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds || claims.exp > nowSeconds + 24 * 3600) {
    return { error: 'exp is not within the next 24 hours' };
  }
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub))
    return { error: 'sub is not mailto: or https:' };
  return { subject: claims.sub, key };
}
