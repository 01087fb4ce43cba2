export { parseClusterNodes, type RedisCommandClient } from './redis-client.js';
export * from './redis-hub.js';
export * from './redis-limiter.js';
