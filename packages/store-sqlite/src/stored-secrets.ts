import type { StoredSecret, StoredSecretStore } from '@tidings/core/store';
import type Database from 'better-sqlite3';

interface EndpointSecretsRow {
  id: string;
  project_id: string;
  secret: string;
  previous_secret: string | null;
}

/**
 * The stored secrets, read and rewritten as opaque text for the core, which seals them: the
 * columns are fixed here, never taken from the caller.
 */
export function storedSecretOperations(db: Database.Database): StoredSecretStore {
  const selectVapid = db.prepare<[], string>('SELECT private_key FROM vapid_keys WHERE id = 1').pluck();
  const selectEndpoints = db.prepare<[string, number], EndpointSecretsRow>(
    'SELECT id, project_id, secret, previous_secret FROM webhook_endpoints WHERE id > ? ORDER BY id LIMIT ?',
  );
  const replace = {
    vapid_keys: {
      private_key: db.prepare<[string, string, string]>(
        'UPDATE vapid_keys SET private_key = ? WHERE CAST(id AS TEXT) = ? AND private_key = ?',
      ),
    },
    webhook_endpoints: {
      secret: db.prepare<[string, string, string]>(
        'UPDATE webhook_endpoints SET secret = ? WHERE id = ? AND secret = ?',
      ),
      previous_secret: db.prepare<[string, string, string]>(
        'UPDATE webhook_endpoints SET previous_secret = ? WHERE id = ? AND previous_secret = ?',
      ),
    },
  } as const;

  return {
    async listStoredSecrets({ after, limit }) {
      const secrets: StoredSecret[] = [];
      let rows = limit;
      if (after === null) {
        const privateKey = selectVapid.get();
        if (privateKey !== undefined) {
          secrets.push({ table: 'vapid_keys', id: '1', projectId: null, column: 'private_key', value: privateKey });
          rows--;
        }
      }
      if (rows <= 0) return secrets;
      const afterId = after?.table === 'webhook_endpoints' ? after.id : '';
      for (const row of selectEndpoints.all(afterId, rows)) {
        const place = { table: 'webhook_endpoints', id: row.id, projectId: row.project_id } as const;
        secrets.push({ ...place, column: 'secret', value: row.secret });
        if (row.previous_secret !== null)
          secrets.push({ ...place, column: 'previous_secret', value: row.previous_secret });
      }
      return secrets;
    },
    async replaceStoredSecret({ table, id, column, expected, value }) {
      const statements: Partial<Record<string, Database.Statement<[string, string, string]>>> = replace[table];
      const statement = statements[column];
      if (!statement) throw new TypeError(`${table} holds no secret in ${column}`);
      return statement.run(value, id, expected).changes > 0;
    },
  };
}
