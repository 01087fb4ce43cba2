import { describe, expect, it } from 'vitest';
import { defaultLimits } from '../options.js';
import type { Limiter } from '../ports/limiter.js';
import type { ApiKeyRecord, ProjectRecord } from '../ports/records.js';
import { createMemoryLimiter } from '../shared/limiter/memory-limiter.js';
import { limitScopes, passProjectGate } from './project-gate.js';

const project = { id: 'proj_1', accountId: 'acct_1', suspended: false } as ProjectRecord;
const key = { id: 'key_1' } as ApiKeyRecord;

/** A limiter that records what it was asked to count. */
function recording(limiter: Limiter = createMemoryLimiter()) {
  const counted: string[][] = [];
  const consume: Limiter['consume'] = (scopes, now) => {
    counted.push(scopes.map((scope) => scope.id));
    return limiter.consume(scopes, now);
  };
  return { counted, limiter: { ...limiter, consume } };
}

describe('the project gate', () => {
  it('counts a key’s request against its key, project and account; a send in process against the project and account; a token minted in process against nothing', async () => {
    const { counted, limiter } = recording();
    const deps = { limiter, limits: defaultLimits, rateLimitHeaders: 'draft' as const };
    expect((await passProjectGate(deps, project, { kind: 'key', key }, 1_000)).kind).toBe('passed');
    expect((await passProjectGate(deps, project, { kind: 'project' }, 1_000)).kind).toBe('passed');
    expect(await passProjectGate(deps, project, { kind: 'none' }, 1_000)).toEqual({ kind: 'passed', headers: {} });
    expect(counted).toEqual([
      ['key:key_1', 'project:proj_1', 'account:acct_1'],
      ['project:proj_1', 'account:acct_1'],
    ]);
  });

  it('refuses a suspended project before anything is counted, whichever way it came', async () => {
    const { counted, limiter } = recording();
    const deps = { limiter, limits: defaultLimits, rateLimitHeaders: 'draft' as const };
    const suspended = { ...project, suspended: true };
    for (const scopes of [{ kind: 'key', key }, { kind: 'project' }, { kind: 'none' }] as const) {
      const outcome = await passProjectGate(deps, suspended, scopes, 1_000);
      expect(outcome.kind === 'refused' && outcome.error.code).toBe('PROJECT_SUSPENDED');
    }
    expect(counted).toEqual([]);
  });

  it('refuses with 429, Retry-After and the RateLimit headers once a scope is full, counting none of them', async () => {
    const limits = { ...defaultLimits, perProject: 1, perKey: 1 };
    const limiter = createMemoryLimiter();
    const deps = { limiter, limits, rateLimitHeaders: 'draft' as const };
    const first = await passProjectGate(deps, project, { kind: 'project' }, 1_000);
    expect(first.kind === 'passed' && first.headers.RateLimit).toBe('"project";r=0;t=60');
    const second = await passProjectGate(deps, project, { kind: 'key', key }, 2_000);
    expect(second.kind === 'refused' && second.error.code).toBe('RATE_LIMITED');
    expect(second.kind === 'refused' && second.error.headers['Retry-After']).toBe('59');
    // Refused requests consume nothing: the key's own scope is still empty.
    const [keyScope] = limitScopes(limits, project, { kind: 'key', key });
    expect((await limiter.consume([keyScope!], 3_000)).allowed).toBe(true);
  });
});
