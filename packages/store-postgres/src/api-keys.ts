import type { ApiKeyRecord } from '@tidings/core';
import type { ApiKeyStore } from '@tidings/core/store';
import type { Pool } from 'pg';
import { API_KEY, JOINED_PROJECT, type JoinedProjectRow, joinedProject } from './columns.js';
import { run, type Sql, transaction } from './db.js';
import { createGroup } from './group.js';

/**
 * API keys. A lookup by hash is an indexed query on every request (the lookups of one turn in
 * one statement), never a cache: a key revoked or a project suspended by any instance, the CLI
 * or plain SQL is refused by every instance at its next request.
 */
export function apiKeyOperations(pool: Pool, sql: Sql): ApiKeyStore {
  const { t, statement } = sql;
  // The project's row lock serializes the key creations of one project, so that concurrent
  // creations cannot both count nine active keys. NO KEY UPDATE: sends and lookups do not wait.
  const lockProject = statement('lock_project', `SELECT 1 FROM ${t('projects')} WHERE id = $1 FOR NO KEY UPDATE`);
  const insertKeyUnderLimit = statement(
    'insert_key',
    `INSERT INTO ${t('api_keys')} (id, project_id, hash, prefix, mode, name, created_at)
     SELECT $1, $2, $3, $4, $5, $6, $7
      WHERE (SELECT count(*) FROM ${t('api_keys')} WHERE project_id = $2 AND revoked_at IS NULL) < $8
     RETURNING ${API_KEY}`,
  );
  const selectKey = statement('select_key', `SELECT ${API_KEY} FROM ${t('api_keys')} WHERE id = $1`);
  const selectKeys = statement(
    'select_keys',
    `SELECT ${API_KEY} FROM ${t('api_keys')} WHERE project_id = $1 ORDER BY created_at, id`,
  );
  const revoke = statement(
    'revoke_key',
    `UPDATE ${t('api_keys')} SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING ${API_KEY}`,
  );
  const keyByHash = `SELECT k.hash, k.id, k.project_id AS "projectId", k.prefix, k.mode, k.name, k.created_at AS "createdAt",
            k.last_used_at AS "lastUsedAt", k.revoked_at AS "revokedAt", ${JOINED_PROJECT}
       FROM ${t('api_keys')} AS k JOIN ${t('projects')} AS p ON p.id = k.project_id`;
  // One key, the usual case: PostgreSQL plans a statement with a list parameter anew at every
  // run (its cost depends on the list's length, which a kept plan cannot know), and that
  // planning was most of the lookup's time on the server. This one keeps its plan.
  const selectOneByHash = statement('select_key_by_hash', `${keyByHash} WHERE k.hash = $1`);
  const selectByHash = statement('select_keys_by_hash', `${keyByHash} WHERE k.hash = ANY($1::text[])`);
  // The lookups of one turn go to the server as one statement. Each reads the rows as they are
  // when it is sent, after the request that asked: a revocation committed before the request
  // is seen, as it would be by a lookup of its own.
  const lookups = createGroup<string, (ApiKeyRecord & JoinedProjectRow & { hash: string }) | undefined>({
    async runGroup(hashes) {
      const distinct = [...new Set(hashes)];
      const rows = await run<ApiKeyRecord & JoinedProjectRow & { hash: string }>(
        pool,
        distinct.length === 1 ? selectOneByHash : selectByHash,
        distinct.length === 1 ? distinct : [distinct],
      );
      const byHash = new Map(rows.map((row) => [row.hash, row]));
      return hashes.map((hash) => byHash.get(hash));
    },
    maxItems: 500,
    parallel: 4,
  });
  // One conditional statement, so that concurrent requests cannot both decide to write.
  const touch = statement(
    'touch_key',
    `UPDATE ${t('api_keys')} SET last_used_at = $2
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::int8 - $3::int8)`,
  );

  return {
    async createApiKey(input) {
      return transaction(pool, async (client) => {
        const [project] = await run(client, lockProject, [input.projectId]);
        if (!project) return { kind: 'project-not-found' };
        const [key] = await run<ApiKeyRecord>(client, insertKeyUnderLimit, [
          input.id,
          input.projectId,
          input.hash,
          input.prefix,
          input.mode,
          input.name,
          input.now,
          input.maxActive,
        ]);
        return key ? { kind: 'created', key } : { kind: 'limit-reached' };
      });
    },
    async getApiKey(id) {
      const [row] = await run<ApiKeyRecord>(pool, selectKey, [id]);
      return row ?? null;
    },
    async listApiKeys(projectId) {
      return run<ApiKeyRecord>(pool, selectKeys, [projectId]);
    },
    async revokeApiKey({ id, now }) {
      const [row] = await run<ApiKeyRecord>(pool, revoke, [id, now]);
      return row ?? null;
    },
    async findApiKeyByHash(hash) {
      const row = await lookups.run(hash);
      if (!row) return null;
      const key: ApiKeyRecord = {
        id: row.id,
        projectId: row.projectId,
        prefix: row.prefix,
        mode: row.mode,
        name: row.name,
        createdAt: row.createdAt,
        lastUsedAt: row.lastUsedAt,
        revokedAt: row.revokedAt,
      };
      return { key, project: joinedProject(row) };
    },
    async touchApiKey({ id, now, minIntervalMs }) {
      await run(pool, touch, [id, now, minIntervalMs]);
    },
  };
}
