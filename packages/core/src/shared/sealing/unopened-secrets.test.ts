// A stored secret that does not open is never used to sign, and is reported: the webhook and push
// jobs over stores whose values were sealed under another key, or copied from another row.
import { describe, expect, it } from 'vitest';
import type { ClaimedJob } from '../../ports/jobs.js';
import type { LogFields, Logger } from '../../ports/logger.js';
import type { OutboundRequest, OutboundSender } from '../../ports/outbound.js';
import { pushJobs } from '../../push/delivery.js';
import { VAPID_KEY_PLACE } from '../../push/vapid-keys.js';
import { openSigningSecrets, webhookJobs } from '../../webhooks/delivery.js';
import type { WebhookEndpointRecord } from '../../webhooks/endpoint-store.js';
import { generateWebhookSecret } from '../../webhooks/signature.js';
import { generateSecretKey, parseSecretKeys } from './keyring.js';
import { createSecretSealer } from './sealer.js';

const NOW = Date.UTC(2026, 0, 10);
const sealerOf = (key: string) => createSecretSealer(parseSecretKeys([key], 'test'));

function recordingSender() {
  const sent: OutboundRequest[] = [];
  const sender: OutboundSender = {
    async send(request) {
      sent.push(request);
      return { kind: 'answered', status: 204, body: '', durationMs: 1, retryAfterMs: null } as never;
    },
    close() {},
  };
  return { sent, sender };
}

function recordingLogger() {
  const errors: { message: string; fields: LogFields | undefined }[] = [];
  const logger: Logger = { info() {}, warn() {}, error: (message, fields) => errors.push({ message, fields }) };
  return { errors, logger };
}

function endpoint(secret: string, previousSecret: string | null, id = 'whe_1'): WebhookEndpointRecord {
  return {
    id,
    projectId: 'proj_1',
    url: 'https://example.com/hooks',
    description: null,
    events: ['*'],
    status: 'enabled',
    disabledReason: null,
    secret,
    previousSecret,
    previousSecretExpiresAt: previousSecret === null ? null : NOW + 60_000,
    createdAt: NOW,
    updatedAt: NOW,
    failingSince: null,
  };
}

const job = (payload: unknown) => ({ id: 'job_1', projectId: 'proj_1', payload }) as unknown as ClaimedJob;
const context = { signal: new AbortController().signal };

describe('signing secrets that do not open', () => {
  it('signs with what opens, and reports the rest', () => {
    const key = generateSecretKey();
    const sealer = sealerOf(key);
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const place = { table: 'webhook_endpoints', id: 'whe_1', projectId: 'proj_1' };
    const sealed = endpoint(sealer.seal(current, place), sealer.seal(previous, place));
    expect(openSigningSecrets(sealed, NOW, sealer)).toEqual({ secrets: [current, previous], unopened: [] });
    // The previous secret copied from another endpoint's row: left out.
    const copied = sealer.seal(previous, { ...place, id: 'whe_2' });
    expect(openSigningSecrets(endpoint(sealed.secret, copied), NOW, sealer)).toEqual({
      secrets: [current],
      unopened: [{ column: 'previous_secret', reason: 'broken' }],
    });
    expect(openSigningSecrets(sealed, NOW, sealerOf(generateSecretKey())).secrets).toEqual([]);
  });

  it('sends no webhook when the current secret does not open, retries it, and logs it without the secret', async () => {
    const secret = generateWebhookSecret();
    const stored = sealerOf(generateSecretKey()).seal(secret, {
      table: 'webhook_endpoints',
      id: 'whe_1',
      projectId: 'proj_1',
    });
    const { sent, sender } = recordingSender();
    const { errors, logger } = recordingLogger();
    const store = {
      async getWebhookMessage() {
        return { message: { id: 'msg_1', endpointId: 'whe_1', status: 'pending', payload: { type: 'x' } } };
      },
      async getWebhookEndpoint() {
        return endpoint(stored, null);
      },
    };
    const handler = webhookJobs({
      store: store as never,
      sender,
      logger,
      sealer: sealerOf(generateSecretKey()),
      clock: { now: () => NOW },
    }).webhook!;
    const failure = await Promise.resolve(handler(job({ messageId: 'msg_1' }), context)).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ name: 'JobError', retryable: true });
    expect(sent).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.fields).toMatchObject({ endpoint_id: 'whe_1', column: 'secret' });
    expect(JSON.stringify(errors)).not.toContain(secret.slice(6, 22));
  });

  it('pushes nothing when the VAPID private key does not open', async () => {
    const wrongKey = sealerOf(generateSecretKey());
    const { sent, sender } = recordingSender();
    const { errors, logger } = recordingLogger();
    const store = {
      async getNotification() {
        return { notification: { expiresAt: NOW + 3_600_000 }, attempts: [{ id: 'att_1', final: false }] };
      },
      async getPushSubscription() {
        return { browserId: 'brw_1', endpoint: 'https://push.example.com/1', p256dh: 'p', auth: 'a' };
      },
      async getVapidKeys() {
        return { publicKey: 'pub', privateKey: wrongKey.seal('private', VAPID_KEY_PLACE), createdAt: NOW };
      },
    };
    const handler = pushJobs({
      store: store as never,
      vapidSubject: 'mailto:ops@example.com',
      sender,
      logger,
      sealer: sealerOf(generateSecretKey()),
      clock: { now: () => NOW },
    }).push!;
    const failure = await Promise.resolve(
      handler(job({ attemptId: 'att_1', notificationId: 'ntf_1', browserId: 'brw_1' }), context),
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'JobError', retryable: true });
    expect(sent).toEqual([]);
    expect(errors.map((entry) => entry.message)).toEqual([
      'the stored VAPID private key does not open; nothing is pushed',
    ]);
  });
});
