import { generateSecretKey } from '@tidings/core';
import { sealedSecretsScenario } from '@tidings/test-support/sealed-secrets.js';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { quoteIdentifier } from './db.js';
import { createTestStore, testDatabaseUrl } from './test-support/test-database.js';

/** Every row of every table of the schema, as text. */
async function rawRows(schema: string): Promise<string> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
      [schema],
    );
    expect(tables.rows.map((row) => row.table_name)).toEqual(
      expect.arrayContaining(['webhook_endpoints', 'vapid_keys', 'webhook_messages']),
    );
    const texts: string[] = [];
    for (const { table_name: table } of tables.rows) {
      const rows = await client.query<{ row: string }>(
        `SELECT t::text AS row FROM ${quoteIdentifier(schema)}.${quoteIdentifier(table)} t`,
      );
      texts.push(...rows.rows.map((row) => row.row));
    }
    return texts.join('\n');
  } finally {
    await client.end();
  }
}

describe('secrets at rest in PostgreSQL', () => {
  it('no row holds a webhook secret, rolled secret or VAPID private key in any form; signatures verify, pushes decrypt', async () => {
    const store = await createTestStore();
    try {
      const { secrets } = await sealedSecretsScenario(store, () => rawRows(store.schema), generateSecretKey());
      expect(secrets).toHaveLength(4);
      expect(await rawRows(store.schema)).toContain('sealed:v1:');
    } finally {
      await store.close();
    }
  });
});
