import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/harness.js';
import { MAX_WEBHOOK_ENDPOINTS_PER_PROJECT, TidingsError, WEBHOOK_EVENT_TYPES } from '../index.js';
import { webhooks } from '../node/index.js';
import { webhookEventSchemas } from './event-schemas.js';
import { SAMPLE_RECIPIENT } from './samples.js';
import { isWellFormedWebhookSecret } from './signature.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; paths: string[] }> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof TidingsError)) throw new Error(`expected a TidingsError, got ${String(error)}`);
  return { code: error.code, paths: (error.errors ?? []).map((field) => field.path) };
}

describe('admin: webhook endpoints', () => {
  it('creates an endpoint showing its secret once; list and get never show it', async () => {
    h = await createHarness();
    const { admin } = h.tidings;
    const created = await admin.createWebhookEndpoint({
      projectId: h.project.id,
      url: 'https://example.com/hooks',
      events: ['notification.completed', 'browser.connected'],
      description: 'orders',
    });
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      project_id: h.project.id,
      url: 'https://example.com/hooks',
      events: ['notification.completed', 'browser.connected'],
      description: 'orders',
      status: 'enabled',
      disabled_reason: null,
    });
    expect(created.id).toMatch(/^whe_/);
    expect(isWellFormedWebhookSecret(created.secret!)).toBe(true);
    const { secret: _secret, ...shown } = created;
    expect(await admin.getWebhookEndpoint(created.id)).toEqual(shown);
    expect(await admin.listWebhookEndpoints(h.project.id)).toEqual([shown]);
    expect(JSON.stringify(await admin.listWebhookEndpoints(h.project.id))).not.toContain(created.secret);
  });

  it('refuses invalid fields, unknown ids and an endpoint past the limit', async () => {
    h = await createHarness();
    const { admin } = h.tidings;
    const base = { projectId: h.project.id, url: 'https://example.com/x', events: ['*'] };
    expect(await refusal(admin.createWebhookEndpoint({ ...base, url: 'http://example.com/x' }))).toEqual({
      code: 'VALIDATION_FAILED',
      paths: ['url'],
    });
    expect((await refusal(admin.createWebhookEndpoint({ ...base, url: 'https://u:p@example.com/' }))).paths).toEqual([
      'url',
    ]);
    expect((await refusal(admin.createWebhookEndpoint({ ...base, url: 'relative/path' }))).paths).toEqual(['url']);
    expect(
      (await refusal(admin.createWebhookEndpoint({ ...base, url: `https://example.com/${'a'.repeat(2048)}` }))).paths,
    ).toEqual(['url']);
    expect((await refusal(admin.createWebhookEndpoint({ ...base, events: ['notification.sent'] }))).paths).toEqual([
      'events',
    ]);
    expect((await refusal(admin.createWebhookEndpoint({ ...base, events: [] }))).paths).toEqual(['events']);
    expect((await refusal(admin.createWebhookEndpoint({ ...base, description: 'd'.repeat(201) }))).paths).toEqual([
      'description',
    ]);
    expect((await refusal(admin.createWebhookEndpoint({ ...base, projectId: 'proj_unknown' }))).code).toBe('NOT_FOUND');
    expect((await refusal(admin.getWebhookEndpoint('whe_unknown'))).code).toBe('NOT_FOUND');
    expect((await refusal(admin.deleteWebhookEndpoint('whe_unknown'))).code).toBe('NOT_FOUND');
    expect((await refusal(admin.rollWebhookSecret('whe_unknown'))).code).toBe('NOT_FOUND');

    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS_PER_PROJECT; i++) await admin.createWebhookEndpoint(base);
    expect((await refusal(admin.createWebhookEndpoint(base))).code).toBe('WEBHOOK_ENDPOINT_LIMIT_REACHED');
  });

  it('accepts http: URLs only when the webhooks feature allows them', async () => {
    h = await createHarness({ extra: { features: [webhooks({ allowHttp: true })], jobs: false } });
    const created = await h.tidings.admin.createWebhookEndpoint({
      projectId: h.project.id,
      url: 'http://127.0.0.1:9000/hooks',
      events: ['browser.disconnected'],
    });
    expect(created.url).toBe('http://127.0.0.1:9000/hooks');
  });

  it('updates, disables, enables, rolls the secret with a grace period and deletes', async () => {
    h = await createHarness();
    const { admin } = h.tidings;
    const created = await admin.createWebhookEndpoint({
      projectId: h.project.id,
      url: 'https://example.com/hooks',
      events: ['*'],
    });
    expect(await admin.updateWebhookEndpoint(created.id, { events: ['notification.completed'] })).toMatchObject({
      url: 'https://example.com/hooks',
      events: ['notification.completed'],
    });
    expect((await refusal(admin.updateWebhookEndpoint(created.id, { url: 'ftp://x' }))).paths).toEqual(['url']);
    expect(await admin.disableWebhookEndpoint(created.id, 'maintenance')).toMatchObject({
      status: 'disabled',
      disabled_reason: 'maintenance',
    });
    expect(await admin.enableWebhookEndpoint(created.id)).toMatchObject({ status: 'enabled', disabled_reason: null });

    expect((await refusal(admin.rollWebhookSecret(created.id, { graceSeconds: 7 * 86_400 + 1 }))).paths).toEqual([
      'graceSeconds',
    ]);
    const rolled = await admin.rollWebhookSecret(created.id, { graceSeconds: 3_600 });
    expect(isWellFormedWebhookSecret(rolled.secret!)).toBe(true);
    expect(rolled.secret).not.toBe(created.secret);
    expect(Date.parse(rolled.previous_secret_expires_at!) - Date.parse(rolled.updated_at)).toBe(3_600_000);
    expect(await admin.getWebhookEndpoint(created.id)).not.toHaveProperty('secret');

    expect(await admin.deleteWebhookEndpoint(created.id)).toMatchObject({ id: created.id });
    expect(await admin.listWebhookEndpoints(h.project.id)).toEqual([]);
  });
});

describe('a test event of a chosen type', () => {
  it('is a sample of that type that its schema accepts, with fresh ids and the sample recipient', async () => {
    h = await createHarness();
    const { admin } = h.tidings;
    const endpoint = await admin.createWebhookEndpoint({
      projectId: h.project.id,
      url: 'https://example.com/hooks',
      events: ['browser.connected'],
    });
    for (const type of [...WEBHOOK_EVENT_TYPES, 'webhook.test'] as const) {
      const message = await admin.sendTestWebhookEvent(endpoint.id, { type });
      expect(message).toMatchObject({ event_type: type, status: 'pending' });
      const parsed = webhookEventSchemas[type].safeParse(message.payload);
      expect(parsed.success, `${type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      if (type !== 'webhook.test') expect(JSON.stringify(message.payload)).toContain(SAMPLE_RECIPIENT);
    }
    expect(await refusal(admin.sendTestWebhookEvent(endpoint.id, { type: 'notification.sent' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      paths: ['type'],
    });
  });
});
