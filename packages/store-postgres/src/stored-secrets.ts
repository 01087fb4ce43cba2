import type { StoredSecret, StoredSecretStore } from '@tidings/core/store';
import type { Pool } from 'pg';
import { run, type Sql } from './db.js';

interface EndpointSecretsRow {
  id: string;
  projectId: string;
  secret: string;
  previousSecret: string | null;
}

/**
 * The stored secrets, read and rewritten as opaque text for the core, which seals them: the
 * columns are fixed here, never taken from the caller.
 */
export function storedSecretOperations(pool: Pool, sql: Sql): StoredSecretStore {
  const { t, statement } = sql;
  const selectVapid = statement('select_vapid_private_key', `SELECT private_key FROM ${t('vapid_keys')} WHERE id = 1`);
  const selectEndpoints = statement(
    'select_webhook_secrets',
    `SELECT id, project_id AS "projectId", secret, previous_secret AS "previousSecret"
       FROM ${t('webhook_endpoints')} WHERE id > $1 ORDER BY id LIMIT $2`,
  );
  const replace = {
    vapid_keys: {
      private_key: statement(
        'replace_vapid_private_key',
        `UPDATE ${t('vapid_keys')} SET private_key = $1 WHERE id::text = $2 AND private_key = $3 RETURNING id`,
      ),
    },
    webhook_endpoints: {
      secret: statement(
        'replace_webhook_secret',
        `UPDATE ${t('webhook_endpoints')} SET secret = $1 WHERE id = $2 AND secret = $3 RETURNING id`,
      ),
      previous_secret: statement(
        'replace_webhook_previous_secret',
        `UPDATE ${t('webhook_endpoints')} SET previous_secret = $1 WHERE id = $2 AND previous_secret = $3 RETURNING id`,
      ),
    },
  };

  return {
    async listStoredSecrets({ after, limit }) {
      const secrets: StoredSecret[] = [];
      let rows = limit;
      if (after === null) {
        const [vapid] = await run<{ private_key: string }>(pool, selectVapid);
        if (vapid) {
          secrets.push({
            table: 'vapid_keys',
            id: '1',
            projectId: null,
            column: 'private_key',
            value: vapid.private_key,
          });
          rows--;
        }
      }
      if (rows <= 0) return secrets;
      const afterId = after?.table === 'webhook_endpoints' ? after.id : '';
      for (const row of await run<EndpointSecretsRow>(pool, selectEndpoints, [afterId, rows])) {
        const place = { table: 'webhook_endpoints', id: row.id, projectId: row.projectId } as const;
        secrets.push({ ...place, column: 'secret', value: row.secret });
        if (row.previousSecret !== null)
          secrets.push({ ...place, column: 'previous_secret', value: row.previousSecret });
      }
      return secrets;
    },
    async replaceStoredSecret({ table, id, column, expected, value }) {
      const statements: Partial<Record<string, ReturnType<Sql['statement']>>> = replace[table];
      const statement = statements[column];
      if (!statement) throw new TypeError(`${table} holds no secret in ${column}`);
      return (await run(pool, statement, [value, id, expected])).length > 0;
    },
  };
}
