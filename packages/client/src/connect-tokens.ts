import type { ResolvedClientOptions } from './options.js';
import { type RequestOptions, sendApiCall } from './request.js';
import type { ConnectTokenObject, CreateConnectTokenParams } from './types.js';

/** `client.connectTokens`. */
export interface ConnectTokens {
  /**
   * Mints a connect token for `recipient` (`POST /v1/connect-tokens`), to hand to that user's
   * pages. It has no idempotency key and is retried like a send: a retry may mint a second
   * token, which is harmless, since either works and both expire.
   */
  create(params: CreateConnectTokenParams, options?: RequestOptions): Promise<ConnectTokenObject>;
}

export function createConnectTokens(options: ResolvedClientOptions): ConnectTokens {
  return {
    create: (params, requestOptions) =>
      sendApiCall<ConnectTokenObject>(
        options,
        {
          method: 'POST',
          path: '/v1/connect-tokens',
          body: { recipient: params.recipient, ttl_seconds: params.ttlSeconds },
        },
        requestOptions,
      ),
  };
}
