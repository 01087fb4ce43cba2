import { lookup as dnsLookup } from 'node:dns/promises';
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import type {
  OutboundLookup,
  OutboundPolicy,
  OutboundResult,
  OutboundSender,
  ResolvedAddress,
} from '../ports/outbound.js';
import { createHttp2Connections } from './outbound-http2.js';

export type {
  OutboundLookup,
  OutboundPolicy,
  OutboundRequest,
  OutboundResult,
  OutboundSender,
  ResolvedAddress,
} from '../ports/outbound.js';

/**
 * How long an idle kept-alive connection waits for the next request before it is closed, as
 * Node's own global agent does: shorter than the idle timeout of common servers (Node's 5 s,
 * nginx's 75 s), so that a request rarely meets a connection the server is closing.
 */
const IDLE_CONNECTION_MS = 4_000;

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

/** Raised inside the connection's lookup when an address is refused, so the request fails as `refused`. */
class RefusedError extends Error {}

const defaultLookup: OutboundLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * A sender for requests to addresses that customers give: webhook and Web Push endpoints. The
 * address that is checked is the one connected to: host names are resolved once, in the
 * connection's own lookup, every address they resolve to must be public, and the socket connects
 * to one of them (no second resolution that could answer differently). IP literals are checked
 * as they are. Redirects are never followed. Results never carry request headers.
 */
export function createOutboundSender(policy: OutboundPolicy = {}): OutboundSender {
  const allowHttp = policy.allowHttp ?? false;
  const allowPrivate = policy.allowPrivateAddresses ?? false;
  const allowedHosts = policy.allowedHosts ?? null;
  const timeoutMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = policy.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const resolve = policy.lookup ?? defaultLookup;

  /** The connection's lookup: resolves with `resolve`, refuses unless every address is allowed. */
  const pinnedLookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        if (!allowPrivate) {
          for (const { address } of addresses) {
            const refusal = refusalOfAddress(address);
            if (refusal !== null) {
              callback(new RefusedError(`${hostname} resolves to ${refusal}`), '', 0);
              return;
            }
          }
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = wanted === 0 ? addresses : addresses.filter(({ family }) => family === wanted);
        if (usable.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: 'ENOTFOUND' }), '', 0);
        } else if (options.all) {
          (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [...usable]);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };

  // The connections this sender keeps alive, per origin. Each was opened by this sender, to an
  // address its lookup checked under its policy, and stays on that address: a later request to
  // the same origin reuses it without resolving again, a new connection resolves and checks again.
  const agentOptions = { keepAlive: true, scheduling: 'lifo' as const, timeout: IDLE_CONNECTION_MS };
  const ca = policy.ca === undefined ? undefined : [...rootCertificates, ...[policy.ca].flat()];
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(ca === undefined ? agentOptions : { ...agentOptions, ca });
  const http2 =
    policy.http2 === true ? createHttp2Connections({ lookup: pinnedLookup, idleMs: IDLE_CONNECTION_MS, ca }) : null;

  return {
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
      http2?.close();
    },
    send(request) {
      const started = performance.now();
      const checked = checkUrl(request.url, { allowHttp, allowPrivate, allowedHosts });
      if (typeof checked === 'string') return Promise.resolve({ kind: 'refused', reason: checked });
      const { url, host } = checked;

      const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers ?? {})) {
        const lower = name.toLowerCase();
        // The length is this body's; a caller's Content-Length or Transfer-Encoding could only contradict it.
        if (lower === 'content-length' || lower === 'transfer-encoding') continue;
        headers[name] = value;
      }
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) headers['User-Agent'] = 'Tidings';
      if (body !== undefined) headers['Content-Length'] = String(body.byteLength);

      const method = request.method ?? 'POST';
      const options: RequestOptions = {
        protocol: url.protocol,
        hostname: host,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        lookup: pinnedLookup,
        agent: url.protocol === 'https:' ? httpsAgent : httpAgent,
      };
      return new Promise<OutboundResult>((settle) => {
        let done = false;
        let abort: (() => void) | undefined;
        const durationMs = () => Math.round(performance.now() - started);
        const finish = (result: OutboundResult) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          settle(result);
        };
        const fail = (error: unknown) => {
          if (error instanceof RefusedError) finish({ kind: 'refused', reason: error.message });
          else finish({ kind: 'failed', reason: 'network', message: networkMessage(error), durationMs: durationMs() });
        };
        const answered = (status: number, answerHeaders: Record<string, string>, text: string) =>
          finish({
            kind: 'answered',
            status,
            headers: answerHeaders,
            body: text,
            retryAfterMs: parseRetryAfter(answerHeaders['retry-after'] ?? null, Date.now()),
            durationMs: durationMs(),
          });
        const timer = setTimeout(() => {
          finish({
            kind: 'failed',
            reason: 'timeout',
            message: `no whole answer within ${timeoutMs} ms`,
            durationMs: durationMs(),
          });
          abort?.();
        }, timeoutMs);

        const overHttp1 = () => {
          let clientRequest: ClientRequest;
          try {
            clientRequest = (url.protocol === 'https:' ? httpsRequest : httpRequest)(options, (response) => {
              readAnswer(response, maxResponseBytes).then(
                (text) => answered(response.statusCode ?? 0, flatHeaders(response), text),
                fail,
              );
            });
          } catch (error) {
            finish({ kind: 'refused', reason: headerRefusal(error) });
            return;
          }
          abort = () => clientRequest.destroy();
          clientRequest.on('error', fail);
          clientRequest.end(body);
        };

        if (http2 === null || url.protocol !== 'https:') {
          overHttp1();
          return;
        }
        http2
          .request({
            url,
            host,
            method,
            headers,
            body,
            maxResponseBytes,
            onAbort: (giveUp) => {
              abort = giveUp;
            },
          })
          .then(
            (answer) => {
              if (answer !== 'http1') answered(answer.status, answer.headers, answer.body);
              else if (!done) overHttp1();
            },
            (error: unknown) => {
              if (isHeaderError(error)) finish({ kind: 'refused', reason: headerRefusal(error) });
              else fail(error);
            },
          );
      });
    },
  };
}

/** Node's codes for a header it cannot send, over HTTP/1.1 or HTTP/2. */
const HEADER_ERROR_CODES = new Set([
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_INVALID_CHAR',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_HTTP2_INVALID_HEADER_VALUE',
  'ERR_HTTP2_INVALID_CONNECTION_HEADERS',
]);

function isHeaderError(error: unknown): boolean {
  return HEADER_ERROR_CODES.has(String((error as { code?: unknown } | null)?.code));
}

/**
 * Why a request Node would not make is refused. Never Node's own message, which may quote a
 * header's value (a secret).
 */
function headerRefusal(error: unknown): string {
  return isHeaderError(error) ? 'a request header has an invalid name or value' : 'the request could not be made';
}

/** Reads at most `limit` bytes of the body; past that the connection is destroyed. */
function readAnswer(response: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let cut = false;
    response.on('data', (chunk: Buffer) => {
      if (cut) return;
      const room = limit - length;
      if (chunk.length >= room) {
        chunks.push(chunk.subarray(0, room));
        length = limit;
        cut = true;
        response.destroy();
        resolve(new TextDecoder().decode(Buffer.concat(chunks)));
        return;
      }
      chunks.push(chunk);
      length += chunk.length;
    });
    response.on('end', () => resolve(new TextDecoder().decode(Buffer.concat(chunks))));
    response.on('error', (error) => {
      if (!cut) reject(error);
    });
    // A body cut short by the server ends without 'end' (and, on some versions, without 'error').
    response.on('close', () => {
      if (!cut && !response.complete) reject(new Error('the connection closed before the answer was whole'));
    });
  });
}

/** The answer's headers in lower case, repeated ones joined. */
function flatHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** A network error's message, which Node words from the address and the code (never from headers). */
function networkMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'network error';
}

interface UrlRules {
  allowHttp: boolean;
  allowPrivate: boolean;
  allowedHosts: readonly string[] | null;
}

/** The URL and the host to connect to, or the reason it is refused. */
function checkUrl(raw: string, rules: UrlRules): { url: URL; host: string } | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp)) {
    return `the scheme ${url.protocol} is not allowed`;
  }
  if (url.username !== '' || url.password !== '') return 'a URL with a user name or password is not allowed';
  // WHATWG URL has already written every IPv4 form (decimal, octal, hex) as four decimal parts.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (rules.allowedHosts !== null && !rules.allowedHosts.some((pattern) => hostMatches(name, pattern))) {
    return `the host ${name} is not among the allowed hosts`;
  }
  if (!rules.allowPrivate) {
    if (isIP(host) !== 0) {
      const refusal = refusalOfAddress(host);
      if (refusal !== null) return refusal;
    } else if (name === 'localhost' || name.endsWith('.localhost')) {
      return `${name} is a local name`;
    }
  }
  return { url, host };
}

/** Whether `host` is `pattern`, or under it when the pattern is `*.example.com`. */
function hostMatches(host: string, pattern: string): boolean {
  const lower = pattern.toLowerCase();
  if (lower.startsWith('*.')) return host.endsWith(lower.slice(1)) && host.length > lower.length - 1;
  return host === lower;
}

/**
 * Why an address may not be reached (`127.0.0.1, a loopback address`), or null for a public one.
 * Only ipaddr.js's 'unicast' is public; an IPv4-mapped IPv6 address (and a NAT64 one under the
 * well-known prefix) is judged by the IPv4 address it carries, and IPv6 beyond 2000::/3 is not
 * global unicast whatever its range.
 */
function refusalOfAddress(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return `${address}, not an IP address`;
  }
  let range: string = parsed.range();
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (range === 'ipv4Mapped') {
      range = v6.toIPv4Address().range();
    } else if (range === 'rfc6052' && v6.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) {
      const [high = 0, low = 0] = v6.parts.slice(6);
      range = new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]).range();
    } else if (range === 'unicast' && (v6.parts[0]! & 0xe000) !== 0x2000) {
      range = 'reserved';
    }
  }
  return range === 'unicast' ? null : `${address}, a ${range} address`;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/i;
/** The obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850_DATE = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/i;
/** The obsolete asctime form: `Sun Nov  6 08:49:37 1994`. */
const ASCTIME_DATE = /^[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i;

/**
 * The delay a `Retry-After` value asks for, in milliseconds: delay-seconds, or an HTTP-date
 * (any of its three forms) less `nowMs`. Never negative (a date in the past is 0); null when the
 * value is absent or neither form.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const ms = Number(text) * 1000;
    return Number.isSafeInteger(ms) ? ms : null;
  }
  const at = httpDateMs(text, nowMs);
  return at === null ? null : Math.max(0, at - nowMs);
}

/** The day, month name, year, hour, minute and second of an HTTP-date, in whichever form it has. */
function httpDateParts(text: string, nowMs: number): [string, string, number, string, string, string] | null {
  const imf = IMF_FIXDATE.exec(text);
  if (imf) return [imf[1]!, imf[2]!, Number(imf[3]), imf[4]!, imf[5]!, imf[6]!];
  const rfc850 = RFC850_DATE.exec(text);
  if (rfc850) {
    // A two-digit year more than 50 years ahead is the last such year in the past.
    const nowYear = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(rfc850[3]);
    if (year > nowYear + 50) year -= 100;
    return [rfc850[1]!, rfc850[2]!, year, rfc850[4]!, rfc850[5]!, rfc850[6]!];
  }
  const asctime = ASCTIME_DATE.exec(text);
  if (asctime) return [asctime[2]!.trim(), asctime[1]!, Number(asctime[6]), asctime[3]!, asctime[4]!, asctime[5]!];
  return null;
}

function httpDateMs(text: string, nowMs: number): number | null {
  const parts = httpDateParts(text, nowMs);
  if (!parts) return null;
  const [day, monthName, year, hour, minute, second] = parts;
  const month = MONTHS.indexOf(monthName.toLowerCase());
  if (month < 0) return null;
  const ms = Date.UTC(year, month, Number(day), Number(hour), Number(minute), Number(second));
  // Date.UTC rolls 31 Feb over into March; such a date is no date.
  const check = new Date(ms);
  if (check.getUTCDate() !== Number(day) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) {
    return null;
  }
  return ms;
}
