import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type PushOptions, type RequestLogOptions, TidingsError, type TidingsOptions } from '@tidings/core';

/** The Tidings options a JSON config file may set: every one that JSON can express. */
export const configKeys = [
  'limits',
  'trustProxy',
  'rateLimitHeaders',
  'publicUrl',
  'defaultTtlSeconds',
  'connectTokenTtlSeconds',
  'maxConnectTokenTtlSeconds',
  'heartbeatMs',
  'retryMs',
  'staleBrowserMs',
  'maxStreamBufferBytes',
  'sweepIntervalMs',
  'catchUpIntervalMs',
  'idempotencyRetentionMs',
  'maxProjectsPerAccount',
  'maxActiveKeysPerProject',
  'maxBodyBytes',
] as const satisfies readonly (keyof TidingsOptions)[];

/** How the server sends webhooks: the `webhooks` key of a config file. */
export interface WebhooksConfig {
  /** Send to, and accept endpoints at, `http:` URLs: development and tests only. */
  allowHttp?: boolean;
  /** Send to private and loopback addresses: development, tests, trusted customers only. */
  allowPrivateAddresses?: boolean;
}

/** The keys of a config file: the Tidings options, and the settings of the server's features. */
export const serverConfigKeys = [...configKeys, 'push', 'requestLog', 'webhooks', 'secretsKeyFile'] as const;

/** The options of a config file, e.g. `{ "trustProxy": 1, "limits": { "perKey": 120 } }`. */
export type ServerConfig = Pick<TidingsOptions, (typeof configKeys)[number]> & {
  /** Web Push (`webPush` of `@tidings/core/node`): on with a `vapidSubject`. */
  push?: PushOptions;
  /** The request log (`requestLog` of `@tidings/core`); `false` turns it off. */
  requestLog?: RequestLogOptions | false;
  webhooks?: WebhooksConfig;
  /**
   * A file of secrets keys, one per line, the sealing one first (docs/deploy.md#secrets-at-rest);
   * a relative path is read from the config file's folder.
   */
  secretsKeyFile?: string;
};

function configError(path: string, message: string): TidingsError {
  return new TidingsError('VALIDATION_FAILED', `config ${path}: ${message}`);
}

/**
 * Reads a JSON config file. Unknown keys are refused rather than ignored, so that a typo does
 * not silently leave a default in place; the values themselves are checked by `createTidings`.
 */
export async function loadConfig(path: string): Promise<ServerConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw configError(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw configError(path, `is not JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw configError(path, 'must hold a JSON object');
  }
  const unknown = Object.keys(parsed).filter((key) => !(serverConfigKeys as readonly string[]).includes(key));
  if (unknown.length > 0) {
    const names = unknown.map((key) => `"${key}"`).join(', ');
    throw configError(
      path,
      `unknown key${unknown.length > 1 ? 's' : ''} ${names}; known keys: ${serverConfigKeys.join(', ')}`,
    );
  }
  const { limits } = parsed as { limits?: unknown };
  if (limits !== undefined && (typeof limits !== 'object' || limits === null || Array.isArray(limits))) {
    throw configError(path, '"limits" must be an object');
  }
  const { webhooks } = parsed as { webhooks?: unknown };
  if (webhooks !== undefined) {
    if (typeof webhooks !== 'object' || webhooks === null || Array.isArray(webhooks)) {
      throw configError(path, '"webhooks" must be an object');
    }
    for (const [key, value] of Object.entries(webhooks)) {
      if (key !== 'allowHttp' && key !== 'allowPrivateAddresses') {
        throw configError(path, `"webhooks" has an unknown key "${key}"; known keys: allowHttp, allowPrivateAddresses`);
      }
      if (typeof value !== 'boolean') throw configError(path, `"webhooks.${key}" must be true or false`);
    }
  }
  const { secretsKeyFile } = parsed as { secretsKeyFile?: unknown };
  if (secretsKeyFile !== undefined) {
    if (typeof secretsKeyFile !== 'string' || secretsKeyFile === '') {
      throw configError(path, '"secretsKeyFile" must be the path of a file');
    }
    (parsed as ServerConfig).secretsKeyFile = resolve(dirname(path), secretsKeyFile);
  }
  return parsed as ServerConfig;
}
