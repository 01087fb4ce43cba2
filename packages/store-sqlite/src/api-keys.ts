import type { ApiKeyLookup, ApiKeyRecord, ProjectRecord } from '@tidings/core';
import type { ApiKeyStore, CreateApiKeyResult } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import type { GroupRead } from './group-read.js';
import { type ApiKeyRow, apiKeyFromRow, JOINED_PROJECT_COLUMNS, type JoinedProjectRow, joinedProject } from './rows.js';

/** What `createApiKey` takes, as the port declares it. */
type CreateApiKeyInput = Parameters<ApiKeyStore['createApiKey']>[0];

/** Lookups kept at most; past it the kept ones are dropped and looked up again. */
const MAX_KEPT_LOOKUPS = 1024;

/**
 * API keys. The operator CLI may revoke a key or suspend a project from another process, and
 * the server's next lookup must see it. Lookups by hash are kept only while the database's
 * `key_lookup_generation` stands still: triggers raise it with every change to a key's identity
 * or revocation and to any project, in the same transaction, from any connection. Each lookup
 * reads the counter first, so it answers from the same committed state as a fresh query would.
 * Kept lookups are frozen and handed out as they are (records are values, see the Store port).
 */
export function apiKeyOperations(db: Database.Database, groupRead: GroupRead): ApiKeyStore {
  const projectExists = db.prepare<[string], number>('SELECT 1 FROM projects WHERE id = ?').pluck();
  const countActive = db
    .prepare<[string], number>('SELECT count(*) FROM api_keys WHERE project_id = ? AND revoked_at IS NULL')
    .pluck();
  const insertKey = db.prepare<CreateApiKeyInput, ApiKeyRow>(
    `INSERT INTO api_keys (id, project_id, hash, prefix, mode, name, created_at)
     VALUES (@id, @projectId, @hash, @prefix, @mode, @name, @now)
     RETURNING *`,
  );
  const selectKey = db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?');
  const selectKeys = db.prepare<[string], ApiKeyRow>(
    'SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id',
  );
  const revoke = db.prepare<[number, string], ApiKeyRow>(
    'UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING *',
  );
  const selectByHash = db.prepare<[string], ApiKeyRow & JoinedProjectRow>(
    `SELECT k.*, ${JOINED_PROJECT_COLUMNS}
       FROM api_keys AS k JOIN projects AS p ON p.id = k.project_id
      WHERE k.hash = ?`,
  );
  // One conditional statement, so that concurrent requests cannot both decide to write.
  const touch = db.prepare<{ id: string; now: number; minIntervalMs: number }>(
    `UPDATE api_keys SET last_used_at = @now
      WHERE id = @id AND (last_used_at IS NULL OR last_used_at <= @now - @minIntervalMs)`,
  );

  const readGeneration = db.prepare<[], number>('SELECT value FROM key_lookup_generation').pluck();
  const kept = new Map<string, ApiKeyLookup>();
  let keptGeneration = -1;

  const createApiKey = db.transaction((input: CreateApiKeyInput): CreateApiKeyResult => {
    if (!projectExists.get(input.projectId)) return { kind: 'project-not-found' };
    if (countActive.get(input.projectId)! >= input.maxActive) return { kind: 'limit-reached' };
    return { kind: 'created', key: apiKeyFromRow(insertKey.get(input)!) };
  });

  /** One lookup, inside the turn's read transaction: the counter first, then the kept lookup or the row. */
  function lookUp(hash: string): ApiKeyLookup | null {
    const generation = readGeneration.get()!;
    if (generation !== keptGeneration) {
      kept.clear();
      keptGeneration = generation;
    }
    const known = kept.get(hash);
    if (known) return known;
    const row = selectByHash.get(hash);
    if (!row) return null; // unknown hashes are not kept: a key created later is found at once
    const found = frozenLookup(apiKeyFromRow(row), joinedProject(row));
    if (kept.size >= MAX_KEPT_LOOKUPS) kept.clear();
    kept.set(hash, found);
    return found;
  }

  return {
    async createApiKey(input) {
      return createApiKey.immediate(input);
    },
    async getApiKey(id) {
      const row = selectKey.get(id);
      return row ? apiKeyFromRow(row) : null;
    },
    async listApiKeys(projectId) {
      return selectKeys.all(projectId).map(apiKeyFromRow);
    },
    async revokeApiKey({ id, now }) {
      const row = revoke.get(now, id);
      return row ? apiKeyFromRow(row) : null;
    },
    findApiKeyByHash(hash) {
      return groupRead.run(() => lookUp(hash));
    },
    async touchApiKey(input) {
      touch.run(input);
      // last_used_at raises no generation; what is kept follows this process's own writes.
      for (const [hash, found] of kept) {
        if (found.key.id === input.id)
          kept.set(hash, frozenLookup({ ...found.key, lastUsedAt: input.now }, found.project));
      }
    },
  };
}

/**
 * A kept lookup, frozen: the same object is handed to every request while the key and its
 * project stand still, and no caller can change what the next one gets.
 */
function frozenLookup(key: ApiKeyRecord, project: ProjectRecord): ApiKeyLookup {
  return Object.freeze({ key: Object.freeze(key), project: Object.freeze(project) });
}
