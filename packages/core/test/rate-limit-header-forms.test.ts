import { parseRateLimit } from 'ratelimit-header-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { createTidings, type RateLimitHeaderForm } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** docs/api.md#rate-limit-headers: the option's three forms on a real answer and on a 429. */
describe('rateLimitHeaders', () => {
  const forms: [RateLimitHeaderForm, string[], string[]][] = [
    ['draft', ['ratelimit', 'ratelimit-policy'], ['x-ratelimit-limit']],
    ['draft-7', ['ratelimit', 'ratelimit-policy'], ['x-ratelimit-limit']],
    ['legacy', ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'], ['ratelimit', 'ratelimit-policy']],
  ];

  it.each(forms)('%s: an answer and a 429 carry its headers, and only those', async (form, present, absent) => {
    h = await createHarness({ limits: { perKey: 2 }, extra: { rateLimitHeaders: form } });
    await h.connectBrowser('rl');
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await h.send({ recipient: 'rl', title: `n${i}` }));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 429]);
    for (const answer of answers) {
      for (const name of present) expect(answer.headers.has(name), `${form} ${name}`).toBe(true);
      for (const name of absent) expect(answer.headers.has(name), `${form} ${name}`).toBe(false);
    }
    const refused = answers[2]!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    if (form !== 'draft') {
      // Read by a client written against express-rate-limit's headers or GitHub's.
      expect(parseRateLimit(answers[0]!.headers)).toMatchObject({ limit: 2, remaining: 1 });
      expect(parseRateLimit(refused.headers)).toMatchObject({ limit: 2, remaining: 0 });
    } else {
      expect(refused.headers.get('ratelimit')).toMatch(/^"key";r=0;t=\d+$/);
    }
  });

  it('refuses a form it does not know at construction', () => {
    expect(() => createTidings({ store: {} as never, rateLimitHeaders: 'draft-8' as RateLimitHeaderForm })).toThrow(
      /rateLimitHeaders must be one of draft, draft-7, legacy/,
    );
  });
});
