import { runTidings, tidingsJson } from '@tidings/test-support/cli-process.js';
import { describe, expect, it } from 'vitest';
import { cliDatabase } from './cli-fixtures.js';

const { paths, failingJson, verifiedAccount, project } = cliDatabase();

describe('tidings webhook', () => {
  interface Endpoint {
    id: string;
    url: string;
    events: string[];
    status: string;
    secret?: string;
    previous_secret_expires_at: string | null;
  }

  it('creates, lists, updates, disables, enables, rolls the secret of and deletes an endpoint, with audit entries', async () => {
    const projectId = await project(await verifiedAccount('hooks@example.com'), 'Hooks');
    const created = await tidingsJson<Endpoint>([
      'webhook',
      'create',
      '--project',
      projectId,
      '--url',
      'https://example.com/hooks',
      '--events',
      'notification.completed,browser.connected',
      '--actor',
      'dana',
      '--db',
      paths.db,
    ]);
    expect(created.id).toMatch(/^whe_/);
    expect(created.events).toEqual(['notification.completed', 'browser.connected']);
    expect(created.secret).toMatch(/^whsec_/);

    const listed = await runTidings(['webhook', 'list', '--project', projectId, '--db', paths.db]);
    expect(listed.stdout).toContain(`webhook_endpoint ${created.id} enabled https://example.com/hooks`);
    expect(listed.stdout).not.toContain(created.secret);

    const updated = await tidingsJson<Endpoint>(['webhook', 'update', created.id, '--events', '*', '--db', paths.db]);
    expect(updated.events).toEqual(['*']);
    expect((await tidingsJson<Endpoint>(['webhook', 'disable', created.id, '--db', paths.db])).status).toBe('disabled');
    expect((await tidingsJson<Endpoint>(['webhook', 'enable', created.id, '--db', paths.db])).status).toBe('enabled');

    const rolled = await runTidings(['webhook', 'roll-secret', created.id, '--grace-hours', '2', '--db', paths.db]);
    expect(rolled.code).toBe(0);
    const secret = /secret (whsec_\S+)/.exec(rolled.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(secret).not.toBe(created.secret);

    const invalid = await failingJson([
      'webhook',
      'create',
      '--project',
      projectId,
      '--url',
      'http://x',
      '--events',
      '*',
    ]);
    expect(invalid.code).toBe('VALIDATION_FAILED');

    await tidingsJson(['webhook', 'delete', created.id, '--db', paths.db]);
    expect(await tidingsJson(['webhook', 'list', '--project', projectId, '--db', paths.db])).toEqual([]);
    expect((await failingJson(['webhook', 'delete', created.id])).code).toBe('NOT_FOUND');

    const entries = await tidingsJson<{ action: string; actor: string; detail: string; project_id: string | null }[]>([
      'audit',
      '--project',
      projectId,
      '--db',
      paths.db,
    ]);
    const actions = entries.filter((entry) => entry.action.startsWith('webhook.')).map((entry) => entry.action);
    expect(actions).toEqual([
      'webhook.deleted',
      'webhook.secret_rolled',
      'webhook.enabled',
      'webhook.disabled',
      'webhook.updated',
      'webhook.created',
    ]);
    expect(JSON.stringify(entries)).not.toContain('whsec_');
  }, 60_000);

  it('accepts an http: URL with --webhooks-allow-http, the name serve takes, and with its environment alias', async () => {
    const projectId = await project(await verifiedAccount('http-hooks@example.com'), 'Http hooks');
    const create = [
      'webhook',
      'create',
      '--project',
      projectId,
      '--url',
      'http://hooks.example.com/in',
      '--events',
      '*',
    ];
    expect((await failingJson(create)).code).toBe('VALIDATION_FAILED');
    const flagged = await tidingsJson<Endpoint>([
      ...create,
      '--webhooks-allow-http',
      '--actor',
      'dana',
      '--db',
      paths.db,
    ]);
    expect(flagged.url).toBe('http://hooks.example.com/in');
    const update = ['webhook', 'update', flagged.id, '--url', 'http://hooks.example.com/other'];
    expect((await failingJson(update)).code).toBe('VALIDATION_FAILED');
    const aliased = await runTidings([...update, '--actor', 'dana', '--db', paths.db, '--json'], {
      TIDINGS_WEBHOOKS_ALLOW_HTTP: '1',
    });
    expect(aliased.code).toBe(0);
    expect((JSON.parse(aliased.stdout) as Endpoint).url).toBe('http://hooks.example.com/other');
  }, 60_000);

  it('lists an endpoint’s messages, sends a test event, resends one and replays them, with audit entries', async () => {
    interface Message {
      id: string;
      event_type: string;
      status: string;
      endpoint_id: string;
    }
    const projectId = await project(await verifiedAccount('messages@example.com'), 'Messages');
    const created = await tidingsJson<Endpoint>([
      'webhook',
      'create',
      '--project',
      projectId,
      '--url',
      'https://example.com/hooks',
      '--events',
      '*',
      '--db',
      paths.db,
    ]);
    expect(await tidingsJson(['webhook', 'messages', created.id, '--db', paths.db])).toEqual([]);
    const test = await tidingsJson<Message>(['webhook', 'test', created.id, '--db', paths.db]);
    expect(test).toMatchObject({ event_type: 'webhook.test', status: 'pending', endpoint_id: created.id });
    const listed = await runTidings(['webhook', 'messages', created.id, '--status', 'pending', '--db', paths.db]);
    expect(listed.stdout).toContain(`webhook_message ${test.id} pending webhook.test attempts=0`);
    expect(await tidingsJson(['webhook', 'messages', created.id, '--status', 'delivered', '--db', paths.db])).toEqual(
      [],
    );

    // A pending message is on its way already: resending answers it as it is.
    const resent = await tidingsJson<Message>(['webhook', 'resend', test.id, '--actor', 'dana', '--db', paths.db]);
    expect(resent).toMatchObject({ id: test.id, status: 'pending' });
    const replayed = await tidingsJson<{ count: number }>([
      'webhook',
      'replay',
      created.id,
      '--since',
      '2020-01-01T00:00:00Z',
      '--actor',
      'dana',
      '--db',
      paths.db,
    ]);
    // The pending test message is taken too: made due now, it counts.
    expect(replayed).toEqual({ count: 1 });
    expect((await failingJson(['webhook', 'resend', 'msg_unknown'])).code).toBe('NOT_FOUND');
    expect((await failingJson(['webhook', 'messages', 'whe_unknown'])).code).toBe('NOT_FOUND');
    const badSince = await runTidings(['webhook', 'replay', created.id, '--since', 'yesterday', '--db', paths.db]);
    expect(badSince.code).not.toBe(0);
    expect(badSince.stderr).toContain('--since must be an ISO 8601 time');

    const entries = await tidingsJson<{ action: string; actor: string }[]>([
      'audit',
      '--project',
      projectId,
      '--db',
      paths.db,
    ]);
    expect(entries.slice(0, 2).map((entry) => [entry.action, entry.actor])).toEqual([
      ['webhook.messages_replayed', 'dana'],
      ['webhook.message_resent', 'dana'],
    ]);
  }, 60_000);
});
