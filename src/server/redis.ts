/**
 * `svc-checkout/server/redis`: the kit's shared state for several processes, in Redis (src/server/redis/connect.ts).
 */
export * from './redis/connect.js';
