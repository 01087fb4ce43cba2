export type { RedisCommandClient } from './redis-client.js';
export * from './redis-limiter.js';
