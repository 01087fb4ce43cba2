import type { ApiKeyLookup, ApiKeyRecord, KeyMode } from '../records.js';

/** Outcome of {@link ApiKeyStore.createApiKey}. */
export type CreateApiKeyResult =
  | { kind: 'created'; key: ApiKeyRecord }
  | { kind: 'project-not-found' }
  | { kind: 'limit-reached' };

/** API keys: issued and revoked by the admin API, looked up and touched by every authenticated request. */
export interface ApiKeyStore {
  /** Creates a key if the project exists and has fewer than `maxActive` keys not revoked. */
  createApiKey(input: {
    id: string;
    projectId: string;
    hash: string;
    prefix: string;
    mode: KeyMode;
    name: string | null;
    now: number;
    maxActive: number;
  }): Promise<CreateApiKeyResult>;
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  listApiKeys(projectId: string): Promise<ApiKeyRecord[]>;
  /** Revokes a key for good; revoking twice keeps the first time. Null when unknown. */
  revokeApiKey(input: { id: string; now: number }): Promise<ApiKeyRecord | null>;
  /** Finds a key (revoked ones included) by the SHA-256 hex of its full value. */
  findApiKeyByHash(hash: string): Promise<ApiKeyLookup | null>;
  /** Sets last-used to `now` unless it was set less than `minIntervalMs` ago. */
  touchApiKey(input: { id: string; now: number; minIntervalMs: number }): Promise<void>;
}
