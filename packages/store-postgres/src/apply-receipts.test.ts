import { newId, type Store } from '@tidings/core';
import { seedBrowser, seedProject, sendCreated, T0 } from '@tidings/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWatchedStore, type WatchedStore } from './test-support/test-database.js';

/** A browser's receipts, seen through the statements that reach the server. */
describe('PostgreSQL store: receipts applied', () => {
  let watched: WatchedStore;
  let store: Store;
  /**
   * The statements run, in order: a prepared one by its name, another by its text, and the
   * receipts' statement (planned on each run, so sent by its text) as `apply_receipts`, or
   * `apply_receipts_unhooked` for its guarded form.
   */
  let statements: string[];
  const named = (statement: string) => {
    if (!statement.startsWith('WITH receipt AS')) return statement;
    return statement.includes('NOT EXISTS') ? 'apply_receipts_unhooked' : 'apply_receipts';
  };

  beforeEach(async () => {
    statements = [];
    watched = await createWatchedStore((statement) => statements.push(named(statement)), 4);
    store = watched.store;
  });
  afterEach(() => watched.close());

  async function endpointWanting(projectId: string, events: string[]): Promise<string> {
    const result = await store.createWebhookEndpoint({
      id: newId('whe', T0),
      projectId,
      url: 'https://example.com/hooks',
      description: null,
      events,
      secret: 'whsec_first',
      now: T0,
      maxEndpoints: 10,
    });
    if (result.kind !== 'created') throw new Error(result.kind);
    return result.endpoint.id;
  }

  /** Sends to the browser and applies a delivered receipt of its attempt; the statements that took. */
  async function receipt(projectId: string, browserId: string, at: number): Promise<string[]> {
    const sent = await sendCreated(store, { projectId, recipient: 'ann', now: at });
    statements = [];
    const applied = await store.applyReceipts({
      browserId,
      receipts: [{ type: 'delivered', attemptId: sent.attempts[0]!.id, at }],
      now: at,
    });
    expect(applied.deliveredAttemptIds).toEqual([sent.attempts[0]!.id]);
    return statements;
  }

  it('takes one statement while no enabled endpoint wants the events of an attempt, whatever else they want', async () => {
    const project = await seedProject(store);
    const browser = await seedBrowser(store, project.id, 'ann', T0);
    expect(await receipt(project.id, browser.id, T0 + 1)).toEqual(['apply_receipts_unhooked']);
    await endpointWanting(project.id, ['browser.connected', 'browser.disconnected']);
    expect(await receipt(project.id, browser.id, T0 + 2)).toEqual(['apply_receipts_unhooked']);
  });

  it('runs in a transaction with the events once an enabled endpoint wants one', async () => {
    const project = await seedProject(store);
    const browser = await seedBrowser(store, project.id, 'ann', T0);
    const endpointId = await endpointWanting(project.id, ['notification.completed']);
    const taken = await receipt(project.id, browser.id, T0 + 1);
    expect(taken.slice(0, 3)).toEqual(['apply_receipts_unhooked', 'BEGIN', 'apply_receipts']);
    expect(taken.at(-1)).toBe('COMMIT');
    const messages = await store.listWebhookMessages({
      endpointId,
      status: null,
      since: null,
      before: null,
      limit: 10,
    });
    expect(messages.map((message) => message.eventType)).toEqual(['notification.completed']);

    await store.setWebhookEndpointStatus({ id: endpointId, status: 'disabled', reason: null, now: T0 + 2 });
    expect(await receipt(project.id, browser.id, T0 + 3)).toEqual(['apply_receipts_unhooked']);
  });
});
