import { describe, expect, it } from 'vitest';
import { assertDriverRuns } from './open-database.js';

describe('assertDriverRuns', () => {
  it('refuses better-sqlite3 13 on Node-API 9 (Node.js 20) with what to do', () => {
    expect(() => assertDriverRuns('13.2.0', { node: '20.20.2', napi: '9' })).toThrow(
      /better-sqlite3 13\.2\.0 needs Node\.js 22 or later.*npm install better-sqlite3@12/,
    );
  });

  it('lets better-sqlite3 13 run on Node-API 10 (Node.js 22 and 24)', () => {
    expect(() => assertDriverRuns('13.2.0', { node: '22.23.3', napi: '10' })).not.toThrow();
    expect(() => assertDriverRuns('13.2.0', { node: '24.21.0', napi: '10' })).not.toThrow();
  });

  it('lets better-sqlite3 12 run on Node.js 20', () => {
    expect(() => assertDriverRuns('12.11.1', { node: '20.20.2', napi: '9' })).not.toThrow();
  });
});
