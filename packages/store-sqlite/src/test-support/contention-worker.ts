/**
 * One process of the multi-process test (multi-process.test.ts): it opens the shared file and,
 * once the common start time has come, races the others to send with the same idempotency keys
 * and to create keys up to the project's limit. It prints what it got as one JSON line.
 */
import { createSqliteStore } from '../sqlite-store.js';

async function main(): Promise<void> {
  const [path, projectId, startAt, rounds, worker] = process.argv.slice(2) as [string, string, string, string, string];
  const store = createSqliteStore({ path, busyTimeoutMs: 10_000 });
  const tally = { created: 0, replayed: 0, keysCreated: 0, keysRefused: 0, errors: [] as string[] };

  // Start together, so that the processes' transactions overlap rather than run one after another.
  while (Date.now() < Number(startAt)) {}

  for (let round = 0; round < Number(rounds); round++) {
    const now = Date.now();
    try {
      const sent = await store.createNotification({
        notification: {
          id: `ntf_${worker}_${round}`,
          projectId,
          mode: 'live',
          recipient: 'r',
          title: 'Hello',
          body: null,
          url: null,
          icon: null,
          tag: null,
          data: null,
          ttl: 60,
          createdAt: now,
          expiresAt: now + 60_000,
          apiKeyId: null,
          requestId: null,
          idempotencyKey: null,
        },
        newAttemptId: () => `att_${worker}_${round}`,
        idempotency: { key: `key-${round}`, fingerprint: 'same', expiresAt: now + 86_400_000 },
        render: (created) => ({ status: 201, body: JSON.stringify({ id: created.notification.id }) }),
      });
      if (sent.kind === 'created') tally.created++;
      else if (sent.kind === 'replay') tally.replayed++;
      else tally.errors.push(`send: ${sent.kind}`);
      const created = await store.createApiKey({
        id: `key_${worker}_${round}`,
        projectId,
        hash: `hash-${worker}-${round}`,
        prefix: 'sk_live_xxxx',
        mode: 'live',
        name: null,
        now,
        maxActive: 10,
      });
      if (created.kind === 'created') tally.keysCreated++;
      else tally.keysRefused++;
    } catch (error) {
      tally.errors.push(String(error));
    }
  }
  await store.close();
  process.stdout.write(`${JSON.stringify(tally)}\n`);
}

// Bundled as CommonJS for plain Node (see multi-process.test.ts), where top-level await is not allowed.
void main();
