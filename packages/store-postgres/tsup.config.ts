import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'postgres-js': 'src/adapters/postgres-js.ts',
    drizzle: 'src/adapters/drizzle.ts',
    kysely: 'src/adapters/kysely.ts',
    knex: 'src/adapters/knex.ts',
    prisma: 'src/adapters/prisma.ts',
    dashboard: 'src/dashboard-store.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
});
