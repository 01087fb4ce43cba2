import type { ClientEnvironment } from '../src/options.js';
import type { NotificationObject } from '../src/types.js';

/** A request the fake fetch received. */
export interface SeenRequest {
  url: string;
  method: string;
  headers: Headers;
  body: string | null;
}

/** What the fake answers to one request: a Response, or a thrown network error. */
export type FakeAnswer = Response | Error | ((init: RequestInit) => Promise<Response>);

/**
 * A `fetch` that answers from a script, one entry per request, and records what it was sent.
 * Running out of script is a test bug, reported as such.
 */
export function scriptedFetch(answers: FakeAnswer[]): { fetch: typeof fetch; seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  const fake = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    seen.push({
      url: String(input),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : null,
    });
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`test bug: no scripted answer for request ${seen.length}`);
    if (answer instanceof Error) throw answer;
    if (typeof answer === 'function') return answer(init);
    return answer;
  };
  return { fetch: fake as typeof fetch, seen };
}

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Request-Id': 'req_fake', ...headers },
  });
}

/** A problem answer as the server renders it. */
export function problem(status: number, code: string, headers: Record<string, string> = {}): Response {
  return new Response(
    JSON.stringify({
      type: `urn:tidings:problem:${code.toLowerCase().replaceAll('_', '-')}`,
      title: code,
      status,
      detail: `detail of ${code}`,
      code,
      request_id: `req_${code.toLowerCase()}`,
    }),
    { status, headers: { 'Content-Type': 'application/problem+json', 'Request-Id': 'req_header', ...headers } },
  );
}

/** An environment whose waits are recorded and take no time, on a clock they move forward. */
export function fakeEnvironment(random = 0.5): { environment: ClientEnvironment; sleeps: number[] } {
  const sleeps: number[] = [];
  let now = Date.parse('2026-11-22T10:00:00Z');
  return {
    sleeps,
    environment: {
      random: () => random,
      now: () => now,
      sleep: async (milliseconds, signal) => {
        if (signal?.aborted) throw signal.reason;
        sleeps.push(milliseconds);
        now += milliseconds;
      },
      isBrowserPage: false,
    },
  };
}

/** A notification object with `attempts` attempts, final or not. */
export function notification(finals: boolean[], id = 'ntf_01'): NotificationObject {
  return {
    object: 'notification',
    id,
    mode: 'live',
    recipient: 'user_42',
    title: 'Hi',
    body: null,
    url: null,
    icon: null,
    tag: null,
    data: null,
    ttl: 86_400,
    created_at: '2026-11-22T10:00:00.000Z',
    expires_at: '2026-11-23T10:00:00.000Z',
    status: finals.every(Boolean) ? 'completed' : 'pending',
    attempts: finals.map((final, index) => ({
      object: 'attempt',
      id: `att_0${index}`,
      browser_id: `brw_0${index}`,
      status: final ? 'delivered' : 'sent',
      final,
      accepted_at: '2026-11-22T10:00:00.000Z',
      sent_at: '2026-11-22T10:00:00.000Z',
      via: 'stream',
      push_accepted_at: null,
      delivered_at: final ? '2026-11-22T10:00:01.000Z' : null,
      failed_at: null,
      expired_at: null,
      reason: null,
      displayed_at: null,
      clicked_at: null,
      dismissed_at: null,
    })),
  };
}
