import type { z } from 'zod';
import type { ResolvedOptionsWith } from '../options.js';
import { TidingsError } from '../pipeline/errors.js';
import type { BrowserStore } from '../ports/store.js';
import { generateConnectToken, hashSecret } from '../shared/secrets.js';
import type { connectTokenObjectSchema } from './object-schemas.js';
import { recipientSchema } from './request-schemas.js';
import { isoTime } from './serialize.js';

/** The public connect token object; the token itself appears only here. */
export type ConnectTokenObject = z.infer<typeof connectTokenObjectSchema>;

/** Mints and stores a connect token for a recipient of a project. */
export async function mintConnectToken(
  options: ResolvedOptionsWith<BrowserStore>,
  input: { projectId: string; recipient: string; ttlSeconds: number | null; now: number; publicBase: string },
): Promise<ConnectTokenObject> {
  const ttlSeconds = input.ttlSeconds ?? options.connectTokenTtlSeconds;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > options.maxConnectTokenTtlSeconds) {
    throw new TidingsError('VALIDATION_FAILED', `ttl_seconds must be 1 to ${options.maxConnectTokenTtlSeconds}`, {
      errors: [{ path: 'ttl_seconds', message: `must be 1 to ${options.maxConnectTokenTtlSeconds}` }],
    });
  }
  if (!recipientSchema.safeParse(input.recipient).success) {
    throw new TidingsError('VALIDATION_FAILED', 'recipient is not a valid recipient id', {
      errors: [{ path: 'recipient', message: 'must be 1 to 128 characters of A-Z a-z 0-9 _ - . : @' }],
    });
  }
  const token = generateConnectToken();
  const expiresAt = input.now + ttlSeconds * 1000;
  await options.store.createConnectToken({
    hash: hashSecret(token),
    projectId: input.projectId,
    recipient: input.recipient,
    now: input.now,
    expiresAt,
  });
  return {
    object: 'connect_token',
    token,
    recipient: input.recipient,
    expires_at: isoTime(expiresAt),
    connect_url: `${input.publicBase}/v1/connect/${token}`,
  };
}
