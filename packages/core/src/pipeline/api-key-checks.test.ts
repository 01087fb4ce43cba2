import { describe, expect, it, vi } from 'vitest';
import { defaultLimits } from '../options.js';
import type { Limiter } from '../ports/limiter.js';
import type { ApiKeyLookup, KeyMode } from '../ports/records.js';
import type { Store } from '../ports/store.js';
import { createMemoryLimiter } from '../shared/limiter/memory-limiter.js';
import { generateApiKey, hashSecret } from '../shared/secrets.js';
import { type ApiKeyCheckInput, presentedApiKey, runApiKeyChecks } from './api-key-checks.js';

const NOW = Date.UTC(2026, 5, 1);

function lookupFor(
  mode: KeyMode,
  overrides: { suspended?: boolean; revokedAt?: number | null; lastUsedAt?: number | null } = {},
) {
  const key = generateApiKey(mode);
  const lookup: ApiKeyLookup = {
    key: {
      id: 'key_1',
      projectId: 'proj_1',
      prefix: key.slice(0, 12),
      mode,
      name: null,
      createdAt: NOW - 1000,
      lastUsedAt: overrides.lastUsedAt === undefined ? null : overrides.lastUsedAt,
      revokedAt: overrides.revokedAt ?? null,
    },
    project: {
      id: 'proj_1',
      accountId: 'acct_1',
      name: 'P',
      suspended: overrides.suspended ?? false,
      createdAt: NOW - 2000,
      suspendedAt: null,
      suspendedReason: null,
      suspendedBy: null,
    },
  };
  return { key, lookup };
}

/** A store that knows one key, and a limiter wrapped in spies, so each step's effects are visible. */
function setup(found: { key: string; lookup: ApiKeyLookup } | null, limiter: Limiter = createMemoryLimiter()) {
  const findApiKeyByHash = vi.fn(async (hash: string) =>
    found && hash === hashSecret(found.key) ? found.lookup : null,
  );
  const touchApiKey = vi.fn(async () => {});
  const store = { findApiKeyByHash, touchApiKey } as unknown as Store;
  const consume = vi.spyOn(limiter, 'consume');
  const deps = {
    store,
    limiter,
    limits: defaultLimits,
    lastUsedIntervalMs: 60_000,
    rateLimitHeaders: 'draft' as const,
  };
  const input = (overrides: Partial<ApiKeyCheckInput> = {}): ApiKeyCheckInput => ({
    authorization: found ? `Bearer ${found.key}` : null,
    origin: null,
    clientIpKey: '203.0.113.9',
    now: NOW,
    ...overrides,
  });
  return { deps, input, findApiKeyByHash, touchApiKey, consume };
}

function refusedCode(outcome: Awaited<ReturnType<typeof runApiKeyChecks>>) {
  return outcome.kind === 'refused' ? outcome.error.code : 'authenticated';
}

describe('step 2: the Authorization header is checked before any lookup', () => {
  it.each([
    [null],
    ['sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['Basic sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['Bearer sk_live_short'],
    ['Bearer sk_prod_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['Bearer sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'],
    ['Bearer sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['Bearer  '],
  ])('%s → 401 without a lookup', async (authorization) => {
    const { deps, input, findApiKeyByHash, consume } = setup(null);
    const outcome = await runApiKeyChecks(deps, input({ authorization }));
    expect(refusedCode(outcome)).toBe('UNAUTHORIZED');
    expect(findApiKeyByHash).not.toHaveBeenCalled();
    expect(consume).toHaveBeenCalledTimes(1);
    expect(consume.mock.calls[0]![0].map((scope) => scope.id)).toEqual(['ip-invalid:203.0.113.9']);
  });

  it('accepts the scheme in any case and a well-formed key', () => {
    const key = generateApiKey('test');
    expect(presentedApiKey(`bearer ${key}`)).toBe(key);
    expect(presentedApiKey(`Bearer ${key}`)).toBe(key);
  });
});

describe('step 3: unknown and revoked keys are invalid', () => {
  it('an unknown well-formed key is looked up once, then refused 401', async () => {
    const { deps, input, findApiKeyByHash } = setup(null);
    const outcome = await runApiKeyChecks(deps, input({ authorization: `Bearer ${generateApiKey('live')}` }));
    expect(refusedCode(outcome)).toBe('UNAUTHORIZED');
    expect(findApiKeyByHash).toHaveBeenCalledTimes(1);
  });

  it('a revoked key is refused 401 even when its project is suspended', async () => {
    const { deps, input } = setup(lookupFor('live', { revokedAt: NOW - 1, suspended: true }));
    expect(refusedCode(await runApiKeyChecks(deps, input()))).toBe('UNAUTHORIZED');
  });
});

describe('step 4: invalid keys count per IP', () => {
  it('the 121st invalid request in 60 s gets 429 with Retry-After; a valid key from that IP still passes', async () => {
    const valid = lookupFor('test');
    const { deps, input } = setup(valid);
    for (let i = 0; i < 120; i++) {
      expect(refusedCode(await runApiKeyChecks(deps, input({ authorization: null, now: NOW + i })))).toBe(
        'UNAUTHORIZED',
      );
    }
    const blocked = await runApiKeyChecks(deps, input({ authorization: null, now: NOW + 200 }));
    expect(refusedCode(blocked)).toBe('RATE_LIMITED');
    if (blocked.kind !== 'refused') throw new Error('expected a refusal');
    expect(Number(blocked.error.headers['Retry-After'])).toBe(60);
    expect((await runApiKeyChecks(deps, input({ now: NOW + 201 }))).kind).toBe('authenticated');
    // Another IP is not affected.
    expect(refusedCode(await runApiKeyChecks(deps, input({ authorization: null, clientIpKey: '198.51.100.1' })))).toBe(
      'UNAUTHORIZED',
    );
    // Once the window has passed, the IP gets 401 again.
    expect(refusedCode(await runApiKeyChecks(deps, input({ authorization: null, now: NOW + 60_000 })))).toBe(
      'UNAUTHORIZED',
    );
  });
});

describe('step 5: the browser guard', () => {
  it('a live key with an Origin header → 403 FORBIDDEN, before suspension and limits', async () => {
    const { deps, input, consume } = setup(lookupFor('live', { suspended: true }));
    expect(refusedCode(await runApiKeyChecks(deps, input({ origin: 'https://app.example' })))).toBe('FORBIDDEN');
    expect(consume).not.toHaveBeenCalled();
  });

  it('a test key with an Origin header passes', async () => {
    const { deps, input } = setup(lookupFor('test'));
    expect((await runApiKeyChecks(deps, input({ origin: 'https://app.example' }))).kind).toBe('authenticated');
  });
});

describe('step 6: a suspended project counts nothing', () => {
  it('→ 403 PROJECT_SUSPENDED without consuming any limit', async () => {
    const { deps, input, consume, touchApiKey } = setup(lookupFor('live', { suspended: true }));
    for (let i = 0; i < 100; i++) {
      expect(refusedCode(await runApiKeyChecks(deps, input()))).toBe('PROJECT_SUSPENDED');
    }
    expect(consume).not.toHaveBeenCalled();
    expect(touchApiKey).not.toHaveBeenCalled();
  });
});

describe('step 7: key, project and account limits', () => {
  it('the 61st request of a key in 60 s → 429 and nothing is touched', async () => {
    const { deps, input, touchApiKey } = setup(lookupFor('live', { lastUsedAt: NOW }));
    for (let i = 0; i < 60; i++)
      expect((await runApiKeyChecks(deps, input({ now: NOW + i }))).kind).toBe('authenticated');
    const refused = await runApiKeyChecks(deps, input({ now: NOW + 30_000 }));
    expect(refusedCode(refused)).toBe('RATE_LIMITED');
    if (refused.kind !== 'refused') throw new Error('expected a refusal');
    expect(refused.error.headers['Retry-After']).toBe('30');
    expect(refused.error.headers.RateLimit).toBe('"key";r=0;t=30');
    expect(touchApiKey).not.toHaveBeenCalled();
  });

  it('a success carries RateLimit headers for the scope nearest to exhaustion', async () => {
    const { deps, input } = setup(lookupFor('live'));
    const outcome = await runApiKeyChecks(deps, input());
    if (outcome.kind !== 'authenticated') throw new Error('expected success');
    expect(outcome.headers['RateLimit-Policy']).toBe('"key";q=60;w=60');
    expect(outcome.headers.RateLimit).toMatch(/^"key";r=59;t=\d+$/);
  });
});

describe('step 8: last-used time', () => {
  it('is written when unset or a minute old, and not in between', async () => {
    const never = setup(lookupFor('live', { lastUsedAt: null }));
    await runApiKeyChecks(never.deps, never.input());
    expect(never.touchApiKey).toHaveBeenCalledWith({ id: 'key_1', now: NOW, minIntervalMs: 60_000 });

    const recent = setup(lookupFor('live', { lastUsedAt: NOW - 59_999 }));
    await runApiKeyChecks(recent.deps, recent.input());
    expect(recent.touchApiKey).not.toHaveBeenCalled();

    const old = setup(lookupFor('live', { lastUsedAt: NOW - 60_000 }));
    await runApiKeyChecks(old.deps, old.input());
    expect(old.touchApiKey).toHaveBeenCalledTimes(1);
  });
});
