import type Database from 'better-sqlite3';

/**
 * A step of a schema: its SQL, run in one IMMEDIATE transaction; or that SQL with a `prepare`
 * run before that transaction, outside any (what must not run in one, as ATTACH): a `prepare`
 * runs whenever the step is still to apply, so it must be one that can run twice.
 */
export type SchemaStep = string | { prepare(db: Database.Database): void; sql: string };

/**
 * Brings the schema of `db` (what `name` says it is, for an error) up to the last of `steps`:
 * step `i` moves it from `user_version` i to i + 1. Each step runs in its own IMMEDIATE
 * transaction and re-reads `user_version` inside it, so two processes opening a new file at once
 * apply each step exactly once. A schema newer than this package is refused rather than misread.
 */
export function applySchemaSteps(db: Database.Database, steps: readonly SchemaStep[], name: string): number {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  const found = version();
  if (found > steps.length) {
    throw new Error(`${name} is version ${found}, newer than this @tidings/store-sqlite supports (${steps.length})`);
  }
  steps.forEach((step, index) => {
    if (typeof step !== 'string' && version() <= index) step.prepare(db);
    db.transaction(() => {
      if (version() > index) return;
      db.exec(typeof step === 'string' ? step : step.sql);
      db.pragma(`user_version = ${index + 1}`);
    }).immediate();
  });
  return version();
}
