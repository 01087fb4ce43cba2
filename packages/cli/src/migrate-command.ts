import { databasePath, expectPositionals, parseCommand } from './args.js';
import { usage } from './help.js';
import { type CliIo, reportFailure, reportSuccess } from './io.js';
import { describeTarget, migrateStore, storeTarget } from './open-store.js';

/** The migrate command's usage lines. */
export const migrateUsage = {
  synopsis: '',
  summary: 'Bring the database schema up to date (serve also does at start)',
  details: [
    'Creates the database (a SQLite file, or the PostgreSQL schema named by ?schema=, default',
    "tidings) if missing and applies the migrations it lacks, those of the dashboard's tables",
    'included; run it as a deploy step before starting instances that open PostgreSQL with',
    'migrations off, or to check a database.',
  ],
};

/** `tidings migrate`: applies the migrations of the store `--db` names, and says what it did. */
export async function migrateCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand('migrate', args, {});
  if (parsed.values.help === true) {
    io.stdout(usage('migrate'));
    return 0;
  }
  expectPositionals(parsed, [], 'migrate');
  const json = parsed.values.json === true;
  const target = storeTarget(databasePath(parsed, io.env));
  try {
    const { from, to, schema, dashboard } = await migrateStore(target);
    const where = schema === null ? describeTarget(target) : `${describeTarget(target)} (schema ${schema})`;
    const versions = (part: string, before: number, after: number) =>
      before === after
        ? `${part} at version ${after}, up to date`
        : `${part} migrated from version ${before} to ${after}`;
    const text = `${where}: ${versions('schema', from, to)}; ${versions("the dashboard's tables", dashboard.from, dashboard.to)}`;
    return reportSuccess(
      io,
      { result: { object: 'migration', store: target.kind, schema, from, to, dashboard }, text },
      json,
    );
  } catch (error) {
    return reportFailure(io, error, json);
  }
}
