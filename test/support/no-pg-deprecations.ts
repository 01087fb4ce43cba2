import { afterAll, expect } from 'vitest';
import { watchPgDeprecations } from './pg-deprecations.js';

// A setup file of every test project: a file during which node-postgres prints a deprecation
// warning fails. Node prints each warning once per process, so the file that first makes it fails.
const watch = watchPgDeprecations();

afterAll(async () => {
  // A warning is emitted on the next tick of the call that caused it.
  await new Promise((resolve) => setImmediate(resolve));
  expect(watch.stop(), 'node-postgres printed a deprecation warning (run with --trace-deprecation)').toEqual([]);
});
