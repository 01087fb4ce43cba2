import { silentLogger } from '@tidings/core';
import { SHARED_REDIS_URL, uniquePrefix } from '@tidings/test-support/redis-fixtures.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectRedis, type OwnedRedisClient } from './redis-client.js';

describe('connectRedis', () => {
  let owned: OwnedRedisClient | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await owned?.close();
  });

  it('sends commands without a timer of node-redis’s own for each', async () => {
    owned = connectRedis(SHARED_REDIS_URL, { name: 'tidings-test-client', logger: silentLogger });
    await owned.ready;
    const timeouts = vi.spyOn(AbortSignal, 'timeout');
    expect(await owned.client.sendCommand(['PING'])).toBe('PONG');
    expect(await owned.client.sendCommand(['PUBLISH', `${uniquePrefix('client')}nobody`, 'x'])).toBe(0);
    expect(timeouts).not.toHaveBeenCalled();
  });
});
