import { newId, type Store } from '@tidings/core';
import { seedBrowser, seedProject, T0 } from '@tidings/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWatchedStore, type WatchedStore } from './test-support/test-database.js';

/** A browser's registration, seen through the statements that reach the server. */
describe('PostgreSQL store: a browser registered', () => {
  let watched: WatchedStore;
  let store: Store;
  /** The statements run, in order: a prepared one by its name, another by its text. */
  let statements: string[];

  beforeEach(async () => {
    statements = [];
    watched = await createWatchedStore((statement) => statements.push(statement), 4);
    store = watched.store;
  });
  afterEach(() => watched.close());

  async function createEndpoint(projectId: string): Promise<string> {
    const result = await store.createWebhookEndpoint({
      id: newId('whe', T0),
      projectId,
      url: 'https://example.com/hooks',
      description: null,
      events: ['*'],
      secret: 'whsec_first',
      now: T0,
      maxEndpoints: 10,
    });
    if (result.kind !== 'created') throw new Error(result.kind);
    return result.endpoint.id;
  }

  const messageTypes = async (endpointId: string) =>
    (await store.listWebhookMessages({ endpointId, status: null, since: null, before: null, limit: 10 })).map(
      (message) => message.eventType,
    );

  it('takes one statement and no transaction while the project has no enabled endpoint', async () => {
    const project = await seedProject(store);
    statements = [];
    const browser = await seedBrowser(store, project.id, 'ann', T0 + 1);
    expect(statements).toEqual(['insert_browser_unhooked']);
    expect(browser).toMatchObject({ projectId: project.id, recipient: 'ann', connected: true, createdAt: T0 + 1 });
    expect((await store.findBrowser(browser.id))?.browser).toEqual(browser);

    // A disabled endpoint is no endpoint: nothing to record, nothing recorded.
    const endpointId = await createEndpoint(project.id);
    await store.setWebhookEndpointStatus({ id: endpointId, status: 'disabled', reason: null, now: T0 + 2 });
    statements = [];
    await seedBrowser(store, project.id, 'bob', T0 + 3);
    expect(statements).toEqual(['insert_browser_unhooked']);
    expect(await messageTypes(endpointId)).toEqual([]);
  });

  it('registers in a transaction with its browser.connected once the project has an enabled endpoint', async () => {
    const project = await seedProject(store);
    const endpointId = await createEndpoint(project.id);
    statements = [];
    const browser = await seedBrowser(store, project.id, 'ann', T0 + 1);
    // The guarded statement wrote nothing; the registration ran again with its event.
    expect(statements[0]).toBe('insert_browser_unhooked');
    expect(statements.slice(1, 3)).toEqual(['BEGIN', 'insert_browser']);
    expect(statements.at(-1)).toBe('COMMIT');
    expect(await messageTypes(endpointId)).toEqual(['browser.connected']);
    expect((await store.findBrowser(browser.id))?.browser).toEqual(browser);
    // One browser, one recipient: the first statement left no row behind.
    const counts = await watched.pool.query(
      `SELECT (SELECT count(*) FROM "${watched.schema}".browsers)::int AS browsers, (SELECT count(*) FROM "${watched.schema}".recipients)::int AS recipients`,
    );
    expect(counts.rows[0]).toEqual({ browsers: 1, recipients: 1 });
  });
});
