export * from './client-ip.js';
export * from './memory-limiter.js';
export * from './rate-limit-headers.js';
