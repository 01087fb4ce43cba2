import { describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../ports/logger.js';
import { noopMetrics } from '../ports/metrics.js';
import { newId } from '../shared/ids.js';
import { until } from '../testing/until.js';
import type { RawRequestLogEntry } from './entry.js';
import type { RequestLogEntry, RequestLogStore } from './store.js';
import { createRequestLogWriter, READ_COUNT_NOTIFICATIONS, READ_COUNT_PATH } from './writer.js';

function raw(overrides: Partial<RawRequestLogEntry> = {}): RawRequestLogEntry {
  return {
    requestId: newId('req'),
    projectId: 'proj_1',
    keyPrefix: 'sk_test_abcd',
    mode: 'test',
    method: 'POST',
    pathname: '/v1/notifications',
    query: '',
    params: {},
    status: 201,
    idempotencyKey: null,
    createdAt: 1,
    durationMs: 1,
    requestText: null,
    responseText: null,
    concerns: null,
    ...overrides,
  };
}

/** A store whose writes wait until `release()` is called, recording each batch. */
function heldStore() {
  const batches: RequestLogEntry[][] = [];
  let release: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const store = {
    async appendRequestLog(entries: readonly RequestLogEntry[]) {
      batches.push([...entries]);
      await gate;
    },
  } as unknown as RequestLogStore;
  return {
    store,
    batches,
    release: () => release(),
    hold() {
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
  };
}

function recordingLogger() {
  const warnings: [string, LogFields | undefined][] = [];
  const logger: Logger = { info() {}, warn: (message, fields) => warnings.push([message, fields]), error() {} };
  return { logger, warnings };
}

function recordingMetrics() {
  const dropped: number[] = [];
  return { metrics: { ...noopMetrics, requestLogDropped: (count: number) => dropped.push(count) }, dropped };
}

describe('the request log writer', () => {
  it('writes on close what it holds, redacted, in one batch per batch size', async () => {
    const held = heldStore();
    held.release();
    const writer = createRequestLogWriter({
      store: held.store,
      logger: recordingLogger().logger,
      metrics: noopMetrics,
      maxBufferedEntries: 100,
      flushIntervalMs: 60_000,
      batchSize: 2,
    });
    for (let i = 0; i < 3; i++) writer.record(raw({ responseText: '{"token":"ct_x"}' }));
    expect(held.batches).toEqual([]);
    await writer.close();
    expect(held.batches.map((batch) => batch.length)).toEqual([2, 1]);
    expect(held.batches[0]![0]!.responseBody).toEqual({ text: '{"token":"[redacted]"}', truncated: false });
    writer.record(raw());
    expect(writer.dropped).toBe(1);
  });

  it('writes after the interval without a close', async () => {
    const held = heldStore();
    held.release();
    const writer = createRequestLogWriter({
      store: held.store,
      logger: recordingLogger().logger,
      metrics: noopMetrics,
      maxBufferedEntries: 100,
      flushIntervalMs: 5,
      batchSize: 100,
    });
    writer.record(raw());
    await until(() => held.batches.length === 1);
    await writer.close();
  });

  it('drops and counts what comes past the bound while writes are slow, never waiting, with one warning per burst', async () => {
    const held = heldStore();
    const { logger, warnings } = recordingLogger();
    const { metrics, dropped } = recordingMetrics();
    const writer = createRequestLogWriter({
      store: held.store,
      logger,
      metrics,
      maxBufferedEntries: 4,
      flushIntervalMs: 60_000,
      batchSize: 2,
    });
    // Two batches reach the store and wait there: they still count against the bound.
    for (let i = 0; i < 4; i++) writer.record(raw());
    for (let i = 0; i < 3; i++) writer.record(raw());
    expect(writer.dropped).toBe(3);
    expect(dropped).toEqual([1, 1, 1]);
    expect(warnings).toEqual([['request log entries dropped', { reason: 'buffer full', max_buffered_entries: 4 }]]);
    held.release();
    await writer.flush();
    expect(held.batches.flat()).toHaveLength(4);
    // The buffer drained: the next burst warns again.
    held.hold();
    for (let i = 0; i < 5; i++) writer.record(raw());
    expect(warnings).toHaveLength(2);
    held.release();
    await writer.close();
    expect(held.batches.flat()).toHaveLength(8);
    expect(writer.dropped).toBe(4);
  });

  it('counts the entries of a failed write as dropped, and goes on', async () => {
    let calls = 0;
    const store = {
      async appendRequestLog() {
        calls++;
        if (calls === 1) throw new Error('database is down');
      },
    } as unknown as RequestLogStore;
    const writer = createRequestLogWriter({
      store,
      logger: recordingLogger().logger,
      metrics: noopMetrics,
      maxBufferedEntries: 10,
      flushIntervalMs: 60_000,
      batchSize: 10,
    });
    writer.record(raw());
    await writer.flush();
    writer.record(raw());
    await writer.close();
    expect(calls).toBe(2);
    expect(writer.dropped).toBe(1);
  });
});

describe('counting successful reads', () => {
  it('keeps one entry per key and flush, saying how many reads of which notifications', async () => {
    const held = heldStore();
    held.release();
    const writer = createRequestLogWriter({
      store: held.store,
      logger: recordingLogger().logger,
      metrics: noopMetrics,
      maxBufferedEntries: 100,
      flushIntervalMs: 60_000,
      batchSize: 100,
    });
    const read = (keyPrefix: string, notificationId: string, createdAt: number) =>
      writer.countRead({ projectId: 'proj_1', keyPrefix, mode: 'live', notificationId, createdAt, durationMs: 2 });
    for (let i = 0; i < 30; i++) read('sk_live_AAAA', `ntf_${i % 25}`, 1000 + i);
    read('sk_live_BBBB', 'ntf_x', 2000);
    await writer.flush();
    const entries = held.batches.flat();
    expect(entries).toHaveLength(2);
    const [many, one] = entries;
    expect(many).toMatchObject({
      method: 'GET',
      path: READ_COUNT_PATH,
      status: 200,
      keyPrefix: 'sk_live_AAAA',
      createdAt: 1000,
      durationMs: 2,
      requestBody: null,
    });
    expect(many!.notificationIds).toHaveLength(READ_COUNT_NOTIFICATIONS);
    expect(JSON.parse(many!.responseBody!.text)).toMatchObject({
      object: 'read_count',
      reads: 30,
      first_at: new Date(1000).toISOString(),
      last_at: new Date(1029).toISOString(),
      reads_of_unnamed_notifications: 5,
    });
    expect(one).toMatchObject({ keyPrefix: 'sk_live_BBBB', notificationIds: ['ntf_x'] });
    // The next flush starts a new count.
    read('sk_live_AAAA', 'ntf_1', 3000);
    await writer.close();
    expect(JSON.parse(held.batches.flat().at(-1)!.responseBody!.text)).toMatchObject({ reads: 1 });
  });
});
