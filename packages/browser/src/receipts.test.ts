import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TidingsError } from './errors.js';
import { type BrowserCredentials, createReceiptBatcher, type Receipt, type SendOutcome } from './receipts.js';

const browser: BrowserCredentials = { browserId: 'brw_1', browserSecret: 'bs_1' };
const other: BrowserCredentials = { browserId: 'brw_2', browserSecret: 'bs_2' };
const receipt = (attemptId: string): Receipt => ({
  type: 'delivered',
  attempt_id: attemptId,
  at: '2026-01-01T00:00:00.000Z',
});

function setup(outcomes: SendOutcome[] = []) {
  const sent: { browser: string; ids: string[] }[] = [];
  const errors: TidingsError[] = [];
  const batcher = createReceiptBatcher({
    send: async (target, events) => {
      sent.push({ browser: target.browserId, ids: events.map((event) => event.attempt_id) });
      return outcomes.shift() ?? { ok: true };
    },
    environment: { setTimeout, clearTimeout: (handle) => clearTimeout(handle as number), random: () => 0.5 },
    onError: (error) => errors.push(error),
  });
  return { batcher, sent, errors };
}

const failure = (retry: boolean, retryAfterSeconds: number | null = null): SendOutcome => ({
  ok: false,
  retry,
  error: new TidingsError(retry ? 'RATE_LIMITED' : 'UNAUTHORIZED', 'no', {
    status: retry ? 429 : 401,
    retryAfterSeconds,
  }),
});

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('createReceiptBatcher', () => {
  it('sends the receipts of 50 ms in one request', async () => {
    const { batcher, sent } = setup();
    batcher.add(browser, receipt('a'));
    await vi.advanceTimersByTimeAsync(30);
    batcher.add(browser, receipt('b'));
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(20);
    expect(sent).toEqual([{ browser: 'brw_1', ids: ['a', 'b'] }]);
  });

  it('sends a full batch of 100 at once and keeps the rest for the next one', async () => {
    const { batcher, sent } = setup();
    for (let index = 0; index < 130; index++) batcher.add(browser, receipt(`r${index}`));
    expect(sent.map((batch) => batch.ids.length)).toEqual([100]);
    await vi.advanceTimersByTimeAsync(50);
    expect(sent.map((batch) => batch.ids.length)).toEqual([100, 30]);
  });

  it('never mixes two browsers in one request', async () => {
    const { batcher, sent } = setup();
    batcher.add(browser, receipt('a'));
    batcher.add(other, receipt('b'));
    batcher.add(browser, receipt('c'));
    batcher.flush();
    expect(sent).toEqual([
      { browser: 'brw_1', ids: ['a'] },
      { browser: 'brw_2', ids: ['b'] },
      { browser: 'brw_1', ids: ['c'] },
    ]);
  });

  it('flushes at once on demand', () => {
    const { batcher, sent } = setup();
    batcher.add(browser, receipt('a'));
    batcher.flush();
    expect(sent).toHaveLength(1);
  });

  it('retries a retryable failure after its Retry-After, then succeeds', async () => {
    const { batcher, sent, errors } = setup([failure(true, 2)]);
    batcher.add(browser, receipt('a'));
    batcher.flush();
    await vi.advanceTimersByTimeAsync(1999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual([
      { browser: 'brw_1', ids: ['a'] },
      { browser: 'brw_1', ids: ['a'] },
    ]);
    expect(errors).toEqual([]);
  });

  it('gives up after 4 tries and reports RECEIPTS_FAILED once', async () => {
    const { batcher, sent, errors } = setup([
      failure(true),
      failure(true),
      failure(true),
      failure(true),
      failure(true),
    ]);
    batcher.add(browser, receipt('a'));
    batcher.flush();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sent).toHaveLength(4);
    expect(errors.map((error) => error.code)).toEqual(['RECEIPTS_FAILED']);
  });

  it('does not retry a refusal (401), and reports it with its status', async () => {
    const { batcher, sent, errors } = setup([failure(false)]);
    batcher.add(browser, receipt('a'));
    batcher.flush();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(1);
    expect(errors).toMatchObject([{ code: 'RECEIPTS_FAILED', status: 401 }]);
  });
});
