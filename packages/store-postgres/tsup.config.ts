import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'postgres-js': 'src/adapters/postgres-js.ts',
    drizzle: 'src/adapters/drizzle.ts',
    kysely: 'src/adapters/kysely.ts',
    knex: 'src/adapters/knex.ts',
    sql: 'src/sql.ts',
    prisma: 'src/adapters/prisma.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
});
