import { TidingsError } from './errors.js';
import { CLIENT_VERSION, type ResolvedClientOptions } from './options.js';
import { isRetryableAnswer, parseRetryAfterMs, retryDelayMs } from './retry.js';
import type { ProblemDetails } from './types.js';

/** Options every call takes, overriding the client's. */
export interface RequestOptions {
  /** Retries of this call; see `TidingsClientOptions.maxRetries`. */
  maxRetries?: number;
  /** Time allowed for each request of this call, in milliseconds. */
  timeoutMs?: number;
  /** Aborts the call, including a wait between retries; it then rejects with code `ABORTED`. */
  signal?: AbortSignal;
}

/** One API call: every retry sends these same bytes and headers. */
export interface ApiCall {
  method: 'GET' | 'POST';
  /** From `/v1/…` on. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What one request came to: a parsed body, or an error and whether it may be retried. */
type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; error: TidingsError; retryable: boolean; retryAfterMs: number | null };

/**
 * Sends `call`, retrying what is safe to retry (see `isRetryableAnswer`, and every failure to get
 * an answer) up to `maxRetries` times, each after the wait `retryDelayMs` gives.
 */
export async function sendApiCall<T>(
  options: ResolvedClientOptions,
  call: ApiCall,
  requestOptions: RequestOptions = {},
): Promise<T> {
  const maxRetries = requestOptions.maxRetries ?? options.maxRetries;
  const timeoutMs = requestOptions.timeoutMs ?? options.timeoutMs;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('maxRetries must be an integer ≥ 0');
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new TypeError('timeoutMs must be an integer ≥ 1');
  const { signal } = requestOptions;
  const init: RequestInit = {
    method: call.method,
    headers: requestHeaders(options, call),
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  };
  const url = `${options.baseUrl}${call.path}`;
  for (let retry = 0; ; retry++) {
    if (signal?.aborted) throw abortedError(signal);
    const outcome = await requestOnce(options, url, init, timeoutMs, signal);
    if (outcome.ok) return outcome.value as T;
    if (!outcome.retryable || retry >= maxRetries) throw outcome.error;
    const delay = retryDelayMs(retry, outcome.retryAfterMs, options.environment.random, options);
    if (delay === null) throw outcome.error;
    try {
      await options.environment.sleep(delay, signal);
    } catch {
      throw abortedError(signal!);
    }
  }
}

/** The headers of every request of a call; the client's own win over `options.headers` in any case. */
function requestHeaders(options: ResolvedClientOptions, call: ApiCall): Headers {
  const headers = new Headers(options.headers);
  headers.set('Accept', 'application/json');
  headers.set('Authorization', `Bearer ${options.apiKey}`);
  for (const [name, value] of Object.entries(call.headers ?? {})) headers.set(name, value);
  if (call.body !== undefined) headers.set('Content-Type', 'application/json');
  // A page cannot set User-Agent, and a header the server's CORS preflight does not allow would fail there.
  if (!options.environment.isBrowserPage) {
    const own = `tidings-client/${CLIENT_VERSION}`;
    headers.set('User-Agent', options.userAgent ? `${options.userAgent} ${own}` : own);
  }
  return headers;
}

async function requestOnce(
  options: ResolvedClientOptions,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Outcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no answer within ${timeoutMs} ms`));
  }, timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let response: Response;
  let text: string;
  try {
    response = await options.fetch(url, { ...init, signal: controller.signal });
    text = await response.text();
  } catch (cause) {
    if (signal?.aborted) return { ok: false, error: abortedError(signal), retryable: false, retryAfterMs: null };
    const error = timedOut
      ? new TidingsError('REQUEST_TIMEOUT', `${init.method} ${url}: no answer within ${timeoutMs} ms`, { cause })
      : new TidingsError('NETWORK_ERROR', `${init.method} ${url}: ${failureText(cause)}`, { cause });
    // Safe for every call of this client: a send carries its Idempotency-Key, reads change
    // nothing, and a second connect token is harmless (see the README).
    return { ok: false, error, retryable: true, retryAfterMs: null };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
  return readAnswer(response, text, options.environment.now());
}

/** Turns an answer into an outcome: the parsed object, or a TidingsError from its problem. */
function readAnswer(response: Response, text: string, now: number): Outcome {
  const json = parseJson(text);
  const problem = response.ok ? null : asProblem(json);
  const requestId = problem?.request_id ?? response.headers.get('request-id');
  if (response.ok) {
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return { ok: true, value: json };
    const error = new TidingsError('INVALID_RESPONSE', `HTTP ${response.status} without a JSON object`, {
      status: response.status,
      requestId,
    });
    return { ok: false, error, retryable: false, retryAfterMs: null };
  }
  const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), now);
  const code = problem?.code ?? null;
  const error = new TidingsError(
    (code as TidingsError['code'] | null) ?? 'HTTP_ERROR',
    problem ? problem.detail || problem.title : `HTTP ${response.status}`,
    {
      status: response.status,
      requestId,
      retryAfter: retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000),
      problem,
    },
  );
  return { ok: false, error, retryable: isRetryableAnswer(response.status, code), retryAfterMs };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A problem body with a code, or null (a proxy's HTML page, an empty body). */
function asProblem(json: unknown): ProblemDetails | null {
  if (typeof json !== 'object' || json === null) return null;
  const problem = json as Partial<ProblemDetails>;
  return typeof problem.code === 'string' && problem.code ? (problem as ProblemDetails) : null;
}

function abortedError(signal: AbortSignal): TidingsError {
  return new TidingsError('ABORTED', 'The call was aborted', { cause: signal.reason });
}

/** The failure's message and its cause's (undici puts the reason, e.g. ECONNREFUSED, in the cause). */
function failureText(cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  const inner = cause instanceof Error && cause.cause instanceof Error ? ` (${cause.cause.message})` : '';
  return `${message}${inner}`;
}
