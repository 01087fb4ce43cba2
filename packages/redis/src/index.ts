export { parseClusterNodes, type RedisCommandClient } from './redis-client.js';
export {
  createRedisHub,
  type RedisHub,
  type RedisHubOptions,
  type RedisHubRouting,
  type RedisHubStats,
  redisHubChannel,
} from './redis-hub.js';
export {
  createRedisLimiter,
  type RedisLimiter,
  type RedisLimiterOptions,
  type WhenRedisUnreachable,
} from './redis-limiter.js';
