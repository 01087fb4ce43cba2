import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../test/memory-storage.js';
import { Input, Phase } from './connection-machine.js';
import { createConnectionState, sleep, to } from './connection-state.js';
import { resolveOptions } from './options.js';
import { pollOnce } from './poll.js';
import { StepKind } from './step.js';
import type { TidingsNotification } from './types.js';

const baseUrl = 'https://tidings.test';

/** A connection's record that answers every request with `answer`, and what it handed to the app. */
function record(answer: (url: string, init?: RequestInit) => Response) {
  const notifications: TidingsNotification[] = [];
  const requests: { url: string; body: unknown }[] = [];
  const s = createConnectionState(
    resolveOptions({
      baseUrl,
      token: 'ct_1',
      transport: 'poll',
      onNotification: (item) => notifications.push(item),
      storage: memoryStorage(),
      fetch: async (input, init) => {
        requests.push({ url: String(input), body: init?.body ?? null });
        return answer(String(input), init);
      },
      environment: { host: null, random: () => 0.5 },
    }),
  );
  return { s, notifications, requests };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('the connection record', () => {
  it('changes phase through the transition table, and a change ends the try and the sleep', async () => {
    const { s } = record(() => json(500, {}));
    const aborted: string[] = [];
    s.underWay = { abort: () => aborted.push('try') };
    const sleeping = sleep(s);

    to(s, Input.Wake); // Trying, woken: no change
    expect(s.phase).toBe(Phase.Trying);
    expect(aborted).toEqual([]);

    to(s, Input.Hide);
    expect(s.phase).toBe(Phase.Hidden);
    expect(aborted).toEqual(['try']);
    await sleeping; // ended by the change
  });

  it('a poll round without a browser registers one: the record holds it, and the next round comes at once', async () => {
    const { s, requests } = record(() => json(201, { browser_id: 'brw_1', browser_secret: 'bs_1' }));
    const step = await pollOnce(s);

    expect(requests.map(({ url }) => url)).toEqual([`${baseUrl}/v1/connect/ct_1`]);
    expect(step).toEqual({ kind: StepKind.Again, delayMs: 0 });
    expect(s.ownBrowser).toEqual({ browserId: 'brw_1', browserSecret: 'bs_1' });
    expect(s.resumeId).toBe('');
    expect(s.currentStatus).toBe('open');
    expect(s.lastDetail).toEqual({ browserId: 'brw_1', resumed: false, transport: 'poll', leader: undefined });
    expect(s.openedAt).toBeTypeOf('number');
  });

  it('a poll round with a browser hands its notifications to the app once, then waits the poll interval', async () => {
    const answer = json(200, { notifications: [{ attempt_id: 'att_1', title: 'Hi' }] });
    const { s, notifications, requests } = record(() => answer.clone());
    s.ownBrowser = { browserId: 'brw_1', browserSecret: 'bs_1' };

    expect(await pollOnce(s)).toEqual({ kind: StepKind.Again, delayMs: 10_000 });
    expect(JSON.parse(String(requests[0]?.body))).toEqual({ browser_id: 'brw_1', browser_secret: 'bs_1' });
    await pollOnce(s); // the same attempt again: not handed twice
    expect(notifications.map((item) => item.attempt_id)).toEqual(['att_1']);
    expect(s.recent.add('att_1')).toBe(false);
  });
});
